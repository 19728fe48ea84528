// Ending a provider-side session after the conversation: bounded, and never an error of the conversation.

/** Hang-up and post-call requests run after the conversation's signal is gone: a real-time bound keeps a
 * provider that never answers from holding a socket (the engine stops waiting for close() anyway). */
export const closeSignal = (ms = 5000) => AbortSignal.timeout(ms);

/**
 * Ends a provider-side session without ever throwing or holding the caller: a hang-up that fails changes
 * nothing about what the agent said, and the engine bounds close() anyway.
 */
export async function bestEffort(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch {
    // deliberately ignored: see above
  }
}
