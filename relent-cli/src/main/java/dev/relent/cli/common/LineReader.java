package dev.relent.cli.common;

import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;

/**
 * Reads text line by line as {@link java.io.BufferedReader#readLine} does ({@code \n}, {@code \r}
 * or {@code \r\n} ends a line; a last line without an end is a line), but never holds more than
 * {@code max} characters of one line: a longer line is read through to its end and answered with
 * {@link #TOO_LONG}, so that one huge line (a whole JSON array on one line, a file that is not JSON
 * Lines at all) is a bad line with a clear message instead of an {@link OutOfMemoryError}. Not
 * thread-safe.
 */
public final class LineReader implements Closeable {
  /**
   * What {@link #readLine} returns for a line longer than the limit; compare by identity. Its text
   * is never a line's.
   */
  public static final String TOO_LONG = new String("(a line over the limit)");

  private final Reader in;
  private final int max;
  private final char[] buffer;
  private int pos;
  private int end;

  /** The last line ended with {@code \r}: a {@code \n} right after it belongs to that end. */
  private boolean afterCr;

  /**
   * Reads {@code in}.
   *
   * @param in the text
   * @param max the most characters a line may have, at least 1
   * @param bufferSize characters read at once, at least 1
   */
  public LineReader(Reader in, int max, int bufferSize) {
    if (max < 1 || bufferSize < 1) {
      throw new IllegalArgumentException("max and bufferSize must be at least 1");
    }
    this.in = in;
    this.max = max;
    this.buffer = new char[bufferSize];
  }

  /**
   * Returns the next line without its end, {@link #TOO_LONG} for a line of more than {@code max}
   * characters, or null at the end of the text.
   *
   * @throws IOException if the text cannot be read
   */
  public String readLine() throws IOException {
    StringBuilder line = null;
    boolean tooLong = false;
    boolean any = false;
    while (true) {
      if (pos == end && !fill()) {
        if (!any) {
          return null;
        }
        break; // a last line without an end
      }
      if (afterCr) {
        afterCr = false;
        if (buffer[pos] == '\n') {
          pos++;
          continue;
        }
      }
      int start = pos;
      while (pos < end && buffer[pos] != '\n' && buffer[pos] != '\r') {
        pos++;
      }
      int length = pos - start;
      any |= length > 0;
      if (!tooLong) {
        int held = line == null ? 0 : line.length();
        if (held + length > max) {
          tooLong = true;
          line = null;
        } else if (pos < end && line == null) {
          // The whole line is in the buffer: no builder.
          String whole = new String(buffer, start, length);
          afterCr = buffer[pos++] == '\r';
          return whole;
        } else {
          if (line == null) {
            line = new StringBuilder(Math.max(16, Math.min(max, 2 * length)));
          }
          line.append(buffer, start, length);
        }
      }
      if (pos < end) {
        afterCr = buffer[pos++] == '\r';
        break;
      }
    }
    // Not too long, so some characters were appended: a line found whole in the buffer returned.
    return tooLong ? TOO_LONG : line.toString();
  }

  private boolean fill() throws IOException {
    int n;
    do {
      n = in.read(buffer, 0, buffer.length);
    } while (n == 0);
    if (n < 0) {
      pos = 0;
      end = 0;
      return false;
    }
    pos = 0;
    end = n;
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
