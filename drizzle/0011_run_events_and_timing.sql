DROP INDEX "webhook_events_run_key";--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "timing_uncertainty_ms" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_run_event_key" ON "webhook_events" USING btree ("run_id","event");