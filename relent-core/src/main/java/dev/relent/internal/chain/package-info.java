/**
 * The executor's guard chain: the guards every call of one executor passes, an absent one a
 * stateless no-op. Internal, not exported: may change without notice. Depends on the guards and
 * time alone, never on {@code dev.relent}, so that the executor can use it without a package cycle.
 */
package dev.relent.internal.chain;
