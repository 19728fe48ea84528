import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom';
import { Layout } from './components/Layout';
import { Loading } from './components/ui';
import { AgentPage } from './pages/AgentPage';
import { Agents, NewAgent } from './pages/Agents';
import { ApiKeys } from './pages/ApiKeys';
import { RunPage } from './pages/RunPage';
import { ComparisonPage } from './pages/ComparisonPage';
import { DiffPage } from './pages/DiffPage';
import { Runs } from './pages/Runs';
import { ScenarioEditor } from './pages/ScenarioEditor';
import { ScenarioPage } from './pages/ScenarioPage';
import { ScenarioRunPage } from './pages/ScenarioRunPage';
import { Scenarios } from './pages/Scenarios';
import { JudgeAgreement } from './pages/JudgeAgreement';
import { GenerateScenarios } from './pages/GenerateScenarios';
import { Schedules } from './pages/Schedules';
import { SignIn } from './pages/SignIn';
import { SuiteEditor } from './pages/SuiteEditor';
import { Suites } from './pages/Suites';
import { WebhookPage } from './pages/WebhookPage';
import { Webhooks } from './pages/Webhooks';
import { SessionProvider, useSession } from './session';
import './styles.css';

function NotFound() {
  return <><h1>Page not found</h1><p>Nothing lives at this address. Pick a section from the menu above.</p></>;
}

function App() {
  const { session, checking } = useSession();
  if (checking) return <main id="main"><Loading what="Checking your session" /></main>;
  // the URL is kept: after signing in the user lands where they were going
  if (!session) return <SignIn />;
  return (
    <Layout>
      <Routes>
        <Route path="/" element={<Navigate to="/runs" replace />} />
        <Route path="/runs" element={<Runs />} />
        <Route path="/runs/:id" element={<RunPage />} />
        <Route path="/runs/:id/compare" element={<ComparisonPage />} />
        <Route path="/scenario-runs/:id" element={<ScenarioRunPage />} />
        <Route path="/scenario-runs/:id/diff" element={<DiffPage />} />
        <Route path="/agents" element={<Agents />} />
        <Route path="/agents/new" element={<NewAgent />} />
        <Route path="/agents/:id" element={<AgentPage />} />
        <Route path="/scenarios" element={<Scenarios />} />
        <Route path="/scenarios/new" element={<ScenarioEditor />} />
        <Route path="/scenarios/generate" element={<GenerateScenarios />} />
        <Route path="/schedules" element={<Schedules />} />
        <Route path="/judge/agreement" element={<JudgeAgreement />} />
        <Route path="/scenarios/:id" element={<ScenarioPage />} />
        <Route path="/scenarios/:id/edit" element={<ScenarioEditor />} />
        <Route path="/suites" element={<Suites />} />
        <Route path="/suites/new" element={<SuiteEditor />} />
        <Route path="/suites/:id" element={<SuiteEditor />} />
        <Route path="/webhooks" element={<Webhooks />} />
        <Route path="/webhooks/:id" element={<WebhookPage />} />
        <Route path="/settings/api-keys" element={<ApiKeys />} />
        <Route path="*" element={<NotFound />} />
      </Routes>
    </Layout>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter>
      <SessionProvider>
        <App />
      </SessionProvider>
    </BrowserRouter>
  </StrictMode>,
);
