"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { agentLabel } from "@/lib/agents/agent-label";
import { api, describeError } from "@/lib/api-client";
import { LEARNING_CATEGORIES } from "@/lib/contracts/memory";
import { Dialog, FormActions } from "../ui/dialog";
import { FormError, useRevealFirstError } from "../ui/form-errors";
import { Field, Select, Textarea } from "../ui/input";
import type { AgentOption } from "./memory-types";

const CATEGORY_LABELS: Record<string, string> = {
  "mistake-pattern": "Mistake pattern",
  "best-practice": "Best practice",
  "codebase-knowledge": "Codebase knowledge",
  preference: "Preference",
};

/** The operator's "inject learning" form: a lead_feedback memory for one agent, optionally a CLAUDE.md line. */
export function InjectLearningDialog({
  open,
  onOpenChange,
  agents,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  agents: AgentOption[];
}) {
  const queryClient = useQueryClient();
  const [targetAgentId, setTarget] = useState("");
  const [category, setCategory] = useState<string>("best-practice");
  const [learning, setLearning] = useState("");
  const [addToClaudeMd, setAddToClaudeMd] = useState(false);
  // A missing agent or learning is said under its field; what the API refuses, above the buttons.
  const [fieldErrors, setFieldErrors] = useState<{ target?: string; learning?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const problems = useRevealFirstError();

  const inject = useMutation({
    mutationFn: () =>
      api<{ memoryIds: number[] }>("/api/v1/memories/learnings", { body: { targetAgentId, category, learning, addToClaudeMd } }),
    onSuccess: () => {
      const agent = agents.find((a) => a.id === targetAgentId);
      toast.success(`Learning injected into ${agent?.name || "the agent"}${addToClaudeMd ? " and its CLAUDE.md" : ""}`);
      queryClient.invalidateQueries({ queryKey: ["memories"] });
      setLearning("");
      setError(null);
      onOpenChange(false);
    },
    onError: (err) => {
      setError(describeError(err));
      problems.reveal();
    },
  });

  const submit = () => {
    const missing = {
      target: targetAgentId ? undefined : "Pick the agent that should learn this.",
      learning: learning.trim() ? undefined : "Write the learning.",
    };
    setFieldErrors(missing);
    setError(null);
    if (missing.target || missing.learning) return problems.reveal();
    inject.mutate();
  };

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Inject a learning"
      description="Give one agent a lesson it will find in memory and get in related task prompts."
    >
      <form
        ref={problems.ref}
        className="space-y-4"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Field label="Target agent" htmlFor="learning-target" error={fieldErrors.target}>
          <Select
            id="learning-target"
            data-testid="learning-target"
            value={targetAgentId}
            onChange={(e) => {
              setTarget(e.target.value);
              setFieldErrors((before) => ({ ...before, target: undefined }));
              setError(null);
            }}
          >
            <option value="">Choose an agent…</option>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agentLabel(agent)} ({agent.role})
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Category" htmlFor="learning-category">
          <Select id="learning-category" data-testid="learning-category" value={category} onChange={(e) => setCategory(e.target.value)}>
            {LEARNING_CATEGORIES.map((value) => (
              <option key={value} value={value}>
                {CATEGORY_LABELS[value]}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          label="Learning"
          htmlFor="learning-text"
          hint="One clear, reusable lesson. It is stored in the agent's own memory scope."
          error={fieldErrors.learning}
        >
          <Textarea
            id="learning-text"
            data-testid="learning-text"
            rows={5}
            maxLength={8000}
            value={learning}
            onChange={(e) => {
              setLearning(e.target.value);
              setFieldErrors((before) => ({ ...before, learning: undefined }));
              setError(null);
            }}
            placeholder="e.g. Run the migrations against a copy of production data before merging schema changes."
          />
        </Field>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            data-testid="learning-claude"
            checked={addToClaudeMd}
            onChange={(e) => setAddToClaudeMd(e.target.checked)}
          />
          Also add it to the agent's CLAUDE.md (under "Feedback from Lead", as a new version)
        </label>
        {error ? <FormError>{error}</FormError> : null}
        <FormActions onCancel={() => onOpenChange(false)} submitLabel="Inject learning" busy={inject.isPending} testId="learning-submit" />
      </form>
    </Dialog>
  );
}
