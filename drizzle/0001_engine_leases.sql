ALTER TABLE "scenario_runs" ADD COLUMN "enqueued" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "lease_expires_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "scenario_runs_lease_idx" ON "scenario_runs" USING btree ("lease_expires_at") WHERE "scenario_runs"."lease_owner" is not null;