ALTER TABLE "agents" ADD COLUMN "tool_names" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "tool_names_set" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "tool_aliases" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "warnings" jsonb DEFAULT '[]'::jsonb NOT NULL;