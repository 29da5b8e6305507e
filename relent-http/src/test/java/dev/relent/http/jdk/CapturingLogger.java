package dev.relent.http.jdk;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.LoggingEventAware;

/**
 * An SLF4J logger that keeps every line, "LEVEL message", and the key-values of each line logged
 * through the fluent API, for assertions.
 */
public final class CapturingLogger extends LegacyAbstractLogger implements LoggingEventAware {
  private static final long serialVersionUID = 1L;

  private final transient List<String> lines = Collections.synchronizedList(new ArrayList<>());
  private final transient List<Map<String, Object>> keyValues =
      Collections.synchronizedList(new ArrayList<>());

  /**
   * Returns the key-values of each line logged through the fluent API, in order.
   *
   * @return a copy
   */
  public List<Map<String, Object>> keyValues() {
    synchronized (keyValues) {
      return List.copyOf(keyValues);
    }
  }

  @Override
  public void log(LoggingEvent event) {
    Map<String, Object> pairs = new LinkedHashMap<>();
    if (event.getKeyValuePairs() != null) {
      for (KeyValuePair pair : event.getKeyValuePairs()) {
        pairs.put(pair.key, pair.value);
      }
    }
    keyValues.add(pairs);
    Object[] args = event.getArgumentArray();
    handleNormalizedLoggingCall(
        event.getLevel(), null, event.getMessage(), args, event.getThrowable());
  }

  CapturingLogger() {
    this.name = "capture";
  }

  List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  String all() {
    return String.join("\n", lines());
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String message, Object[] arguments, Throwable throwable) {
    String text = MessageFormatter.basicArrayFormat(message, arguments);
    lines.add(level + " " + text + (throwable == null ? "" : " " + throwable));
  }

  @Override
  public boolean isTraceEnabled() {
    return true;
  }

  @Override
  public boolean isDebugEnabled() {
    return true;
  }

  @Override
  public boolean isInfoEnabled() {
    return true;
  }

  @Override
  public boolean isWarnEnabled() {
    return true;
  }

  @Override
  public boolean isErrorEnabled() {
    return true;
  }
}
