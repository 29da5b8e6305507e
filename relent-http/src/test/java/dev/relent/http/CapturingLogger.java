package dev.relent.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An SLF4J logger that keeps every line, "LEVEL message", for assertions. */
final class CapturingLogger extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  private final transient List<String> lines = Collections.synchronizedList(new ArrayList<>());

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
