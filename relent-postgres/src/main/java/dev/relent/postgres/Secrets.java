package dev.relent.postgres;

import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks passwords in the messages of failures before the store passes them on. pgjdbc itself never
 * puts the password into a message, but a pool or a wrapping DataSource may quote a JDBC URL or its
 * properties ({@code ...?user=app&password=hunter2}), and the store's exceptions end up in logs.
 */
final class Secrets {

  private static final Pattern PASSWORD =
      Pattern.compile(
          "(?i)(pass(?:word|wd)?\"?\\s*[=:]\\s*)(\"[^\"]*\"|'[^']*'|[^\\s&;,)\\]}\"']+)");

  private Secrets() {}

  static String mask(String text) {
    if (text == null) {
      return null;
    }
    Matcher m = PASSWORD.matcher(text);
    return m.find() ? m.replaceAll("$1***") : text;
  }

  /**
   * Returns {@code e} itself when no message in its cause chain holds a password, else a copy of
   * the chain with masked messages, the same SQLSTATEs and the same stack traces.
   */
  static SQLException mask(SQLException e) {
    boolean leaks = false;
    for (Throwable t = e; t != null && !leaks; t = t.getCause()) {
      leaks = !String.valueOf(t.getMessage()).equals(String.valueOf(mask(t.getMessage())));
    }
    return leaks ? (SQLException) copy(e, 0) : e;
  }

  private static Throwable copy(Throwable t, int depth) {
    if (t == null || depth > 16) {
      return null;
    }
    Throwable masked;
    if (t instanceof SQLException) {
      SQLException s = (SQLException) t;
      masked = new SQLException(mask(s.getMessage()), s.getSQLState(), s.getErrorCode());
    } else {
      // The original type may have no (String) constructor; its name stays in the message.
      masked = new SQLException(t.getClass().getName() + ": " + mask(t.getMessage()));
    }
    masked.setStackTrace(t.getStackTrace());
    Throwable cause = copy(t.getCause(), depth + 1);
    if (cause != null) {
      masked.initCause(cause);
    }
    return masked;
  }
}
