CREATE TABLE "reviews" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"scenario_run_id" uuid NOT NULL,
	"criterion_index" integer NOT NULL,
	"decision" text NOT NULL,
	"note" text,
	"judge_decision" text NOT NULL,
	"judge_graded" boolean NOT NULL,
	"judge_model" text,
	"api_key_id" uuid NOT NULL,
	"reviewer_name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "reviewed_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "scenario_runs" ADD COLUMN "pass_threshold" double precision;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_scenario_run_id_scenario_runs_id_fk" FOREIGN KEY ("scenario_run_id") REFERENCES "public"."scenario_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reviews_scenario_run_idx" ON "reviews" USING btree ("scenario_run_id","criterion_index","created_at");--> statement-breakpoint
CREATE INDEX "reviews_org_created_idx" ON "reviews" USING btree ("org_id","created_at");