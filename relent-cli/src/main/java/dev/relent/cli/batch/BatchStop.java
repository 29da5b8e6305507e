package dev.relent.cli.batch;

/** Why a batch run stopped before its queue was empty. */
enum BatchStop {
  /** The whole run's deadline ({@code --batch-deadline}) passed. */
  BATCH_DEADLINE,
  /** The process was asked to stop (Ctrl-C, SIGTERM). */
  INTERRUPTED,
  /** The journal or the results could not be written, or an unexpected error. */
  ERROR
}
