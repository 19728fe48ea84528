DROP INDEX "scenario_runs_run_idx";--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "repeats" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "scenario_count" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "baseline_run_id" uuid;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "repetition" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "scenario_version" text;--> statement-breakpoint
CREATE INDEX "runs_org_agent_suite_idx" ON "runs" USING btree ("org_id","agent_id","test_suite_id","created_at");--> statement-breakpoint
CREATE INDEX "scenario_runs_run_idx" ON "scenario_runs" USING btree ("run_id","position","repetition");