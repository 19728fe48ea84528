import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/common.js';
import { Decision } from '../../engine/types.js';

export const REVIEW_DECISIONS = ['MET', 'PARTIAL', 'NOT_MET'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

export const ReviewBody = Type.Object({
  criterion_index: Type.Integer({ minimum: 0, maximum: 999, description: 'The criterion, 0-based, in the order of criteria_results' }),
  decision: Type.String({ enum: [...REVIEW_DECISIONS] }),
  note: Type.Optional(Type.String({ maxLength: 2000 })),
}, { additionalProperties: false });
export type ReviewBody = Static<typeof ReviewBody>;

export const ReviewSchema = Type.Object({
  id: Uuid,
  criterion_index: Type.Integer(),
  decision: Type.String({ enum: [...REVIEW_DECISIONS] }),
  note: Nullable(Type.String()),
  judge_decision: Decision,
  reviewer: Type.Object({
    api_key_id: Uuid,
    name: Type.String({ description: 'The API key\'s name when the review was written' }),
  }),
  created_at: Timestamp,
}, { $id: 'Review' });

const Figures = {
  reviewed: Type.Integer({ description: 'Reviewed judge-graded criteria (the latest review of each counts)' }),
  agreement: Nullable(Type.Number({ description: '100 × criteria whose judge decision equals the review / reviewed, 2 decimals; a judge UNSURE never matches; null when nothing was reviewed' })),
  cohen_kappa: Nullable(Type.Number({ description: 'Cohen\'s kappa over the same pairs, categories MET, PARTIAL, NOT_MET, UNSURE, 3 decimals; null when nothing was reviewed' })),
};
const ReviewCounts = Type.Object({ MET: Type.Integer(), PARTIAL: Type.Integer(), NOT_MET: Type.Integer() });

export const AgreementSchema = Type.Object({
  ...Figures,
  confusion: Type.Object({ MET: ReviewCounts, PARTIAL: ReviewCounts, NOT_MET: ReviewCounts, UNSURE: ReviewCounts }, {
    description: '{<judge decision>: {<review decision>: count}}, every key present',
  }),
  by_judge_model: Type.Array(Type.Object({ judge_model: Type.String(), ...Figures })),
}, { $id: 'JudgeAgreement' });
