/**
 * A deterministic discrete-event simulator on virtual time that drives the real Relent guards and
 * executor: the contention model of the jitter study, a retry storm, and a paced queue under a
 * quota. Each model gives a text table, CSV and a self-contained HTML report with SVG charts.
 *
 * <p>{@code dev.relent.sim} is the API; {@code dev.relent.sim.internal} (the event queue, the
 * virtual clock, the chart and HTML writers) may change without notice.
 */
module dev.relent.sim {
  requires dev.relent.core;

  exports dev.relent.sim;
}
