package dev.relent.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Every meter of a registry as one sorted line each, so that a test compares all of them. */
final class Meters {
  private Meters() {}

  /**
   * Lines such as {@code relent.calls{name=api,outcome=success,...} 2} for a counter, {@code
   * relent.call.duration{...} count=3 total=1600ms max=1100ms} for a timer, {@code
   * relent.pacer.pause{...} 60s} for a time gauge, the value for a gauge; sorted.
   */
  static List<String> of(MeterRegistry registry) {
    return registry.getMeters().stream().map(Meters::line).sorted().collect(Collectors.toList());
  }

  private static String line(Meter m) {
    String id =
        m.getId().getName()
            + m.getId().getTags().stream()
                .map(t -> t.getKey() + "=" + t.getValue())
                .collect(Collectors.joining(",", "{", "}"));
    if (m instanceof Timer) {
      Timer t = (Timer) m;
      return id
          + " count="
          + t.count()
          + " total="
          + num(t.totalTime(TimeUnit.MILLISECONDS))
          + "ms max="
          + num(t.max(TimeUnit.MILLISECONDS))
          + "ms";
    }
    if (m instanceof Counter) {
      return id + " " + num(((Counter) m).count());
    }
    if (m instanceof FunctionCounter) {
      return id + " " + num(((FunctionCounter) m).count());
    }
    if (m instanceof TimeGauge) {
      return id + " " + num(((TimeGauge) m).value(TimeUnit.SECONDS)) + "s";
    }
    if (m instanceof Gauge) {
      return id + " " + num(((Gauge) m).value());
    }
    throw new AssertionError("a meter of an unexpected type: " + m.getId());
  }

  /** 2.0 as "2", 0.5 as "0.5", NaN as "NaN". */
  private static String num(double v) {
    return v == Math.rint(v) && !Double.isInfinite(v)
        ? Long.toString((long) v)
        : Double.toString(v);
  }
}
