"use client";

import { TemplateList, type TemplateOffer, useTemplateInstall } from "../schedules/lead-templates-card";
// Shown once the swarm's first lead agent is created: the learning-loop
// schedules (weekly retrospective for every agent; daily digest, weekly metrics
// check and monthly review for the lead) to add now, or later from Schedules.
import { Button } from "../ui/button";
import { Dialog } from "../ui/dialog";

export function LeadScheduleOffer({ offer, leadName, onClose }: { offer: TemplateOffer | null; leadName: string; onClose: () => void }) {
  const { busy, install } = useTemplateInstall();
  const missing = offer?.templates.filter((t) => !t.installed) ?? [];
  return (
    <Dialog
      open={offer !== null}
      onOpenChange={(open) => (open ? null : onClose())}
      title="Set up the learning loop?"
      description={`${leadName} is the swarm's first lead. These schedules give it, and every agent, the retrospectives and reviews that keep the swarm improving. You can add them later on the Schedules page.`}
      className="max-w-2xl!"
    >
      <form
        data-testid="lead-schedule-offer"
        onSubmit={(event) => {
          event.preventDefault();
          void install(
            missing.map((t) => t.key),
            "offer",
          ).then(onClose);
        }}
        className="space-y-4"
      >
        <div className="-mx-1 rounded-md border border-border">
          <TemplateList templates={offer?.templates ?? []} />
        </div>
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Not now
          </Button>
          <Button type="submit" busy={busy === "offer"} data-testid="accept-lead-schedules">
            Add {missing.length} schedules
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
