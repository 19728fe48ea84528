ALTER TABLE "runs" ADD COLUMN "fault_agent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "fault_tester" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "fault_judge" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "fault_provider" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "fault_internal" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "fault_canceled" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "retried_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "fault" text;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "end_reason" text;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "agent_turns" integer;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "decided_share" double precision;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "attempt_history" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "attempt_started_at" timestamp (3) with time zone;