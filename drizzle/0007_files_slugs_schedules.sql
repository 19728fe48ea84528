CREATE TABLE "schedule_firings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"schedule_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"scheduled_for" timestamp (3) with time zone NOT NULL,
	"fired_at" timestamp (3) with time zone NOT NULL,
	"status" text NOT NULL,
	"run_id" uuid,
	"reason" text
);
--> statement-breakpoint
CREATE TABLE "schedules" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"test_suite_id" uuid,
	"cron" text NOT NULL,
	"timezone" text NOT NULL,
	"test_mode" text NOT NULL,
	"max_scenarios" integer,
	"max_turns" integer,
	"repeats" integer,
	"baseline" text NOT NULL,
	"is_active" boolean NOT NULL,
	"last_run_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scenarios" ADD COLUMN "slug" text;--> statement-breakpoint
ALTER TABLE "scenarios" ADD COLUMN "source" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "test_suites" ADD COLUMN "source" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "schedule_firings" ADD CONSTRAINT "schedule_firings_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_firings_minute_key" ON "schedule_firings" USING btree ("schedule_id","scheduled_for");--> statement-breakpoint
CREATE INDEX "schedule_firings_schedule_idx" ON "schedule_firings" USING btree ("schedule_id","scheduled_for");--> statement-breakpoint
CREATE INDEX "schedules_org_idx" ON "schedules" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "scenarios_org_slug_key" ON "scenarios" USING btree ("org_id","slug") WHERE "scenarios"."slug" is not null;