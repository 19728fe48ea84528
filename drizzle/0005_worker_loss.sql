ALTER TABLE "scenario_runs" ADD COLUMN "enqueued_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "claim_token" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "lock_token" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "enqueued_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "scenario_runs_unclaimed_idx" ON "scenario_runs" USING btree ("enqueued_at") WHERE "scenario_runs"."lease_owner" is null and "scenario_runs"."status" in ('pending', 'running', 'grading');--> statement-breakpoint
CREATE INDEX "webhook_attempts_in_flight_idx" ON "webhook_attempts" USING btree ("attempted_at") WHERE "webhook_attempts"."claim_token" is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';