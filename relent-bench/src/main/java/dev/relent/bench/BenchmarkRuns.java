package dev.relent.bench;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The warm-up, measurement and fork settings every benchmark here runs with, so that their figures
 * compare: 3 warm-up and 5 measured iterations of a second each, in one forked JVM. JMH reads these
 * annotations from a benchmark's superclasses too; a benchmark states only its mode, unit, threads
 * and state.
 */
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// The same collector and fixed heap for every library: fewer, shorter pauses on a shared machine.
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
public abstract class BenchmarkRuns {
  /** For the benchmarks' constructors. */
  protected BenchmarkRuns() {}
}
