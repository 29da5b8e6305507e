package dev.relent.cli;

import dev.relent.http.Fault;
import dev.relent.time.Scheduler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Copies the body of {@code relent call}'s final response to standard output or to {@code --output
 * FILE} as it arrives, 64 KiB at a time, so that a body of any size passes through a small heap.
 *
 * <p>The body reaching here belongs to a response the retry loop has already accepted as final (a
 * success, or a status not retried): the loop hands such responses over as soon as their headers
 * arrive, without reading their bodies, and keeps in memory (at most 64 KiB) only the bodies of
 * responses it retries or holds back. So nothing of a failed attempt is ever written. What remains
 * is a body cut off while it is being copied: its first bytes are out already, a retry cannot take
 * them back, so it is not retried; {@link Copied#failure()} says what happened.
 *
 * <p>The copy is bounded by what is left of the final attempt's time limit ({@code --timeout}, body
 * included, within {@code --deadline}): when it is up, the body stream is closed, which makes the
 * pending read fail.
 */
final class BodyOutput {
  static final int CHUNK = 64 * 1024;

  /**
   * What the copy did.
   *
   * @param bytes bytes written
   * @param failure why the body was cut off (the network, or the time limit), or null when it
   *     arrived whole
   * @param timedOut whether the time limit cut it off
   * @param writeFailure why the output could not be written, or null
   */
  record Copied(long bytes, IOException failure, boolean timedOut, IOException writeFailure) {

    /** What the network did, in the decision table's words: {@code truncated response}, .... */
    String faultDescription() {
      if (timedOut) {
        return "read timeout: the body did not end within the attempt's time limit";
      }
      Fault f = Fault.classify(failure);
      return (f == null ? "I/O failure" : f.description())
          + " ("
          + failure.getClass().getSimpleName()
          + ")";
    }
  }

  private BodyOutput() {}

  /**
   * Copies a body, closing it at the end.
   *
   * @param body the body stream, or null for none (nothing is written, a file is not touched)
   * @param stdout standard output, used when {@code file} is null
   * @param file {@code --output FILE}, or null
   * @param scheduler schedules the time limit
   * @param limitNanos the time the copy may take, or {@code Long.MAX_VALUE} for no limit
   */
  static Copied copy(
      InputStream body, PrintStream stdout, Path file, Scheduler scheduler, long limitNanos) {
    if (body == null) {
      return new Copied(0, null, false, null);
    }
    AtomicBoolean timedOut = new AtomicBoolean();
    Future<?> timer =
        limitNanos == Long.MAX_VALUE
            ? null
            : scheduler.schedule(
                () -> {
                  timedOut.set(true);
                  closeQuietly(body);
                },
                Math.max(0L, limitNanos));
    long written = 0;
    try (InputStream in = body) {
      OutputStream out;
      try {
        out = file == null ? stdout : Files.newOutputStream(file);
      } catch (IOException e) {
        return new Copied(0, null, false, e);
      }
      try {
        byte[] chunk = new byte[CHUNK];
        while (true) {
          int n;
          try {
            n = in.read(chunk);
          } catch (IOException e) {
            return new Copied(written, e, timedOut.get(), null);
          }
          if (n < 0) {
            break;
          }
          out.write(chunk, 0, n);
          written += n;
          if (file == null && stdout.checkError()) {
            // a closed pipe (| head): the rest of the body has nowhere to go
            return new Copied(written, null, false, new IOException("standard output is closed"));
          }
        }
        out.flush();
        if (file == null && stdout.checkError()) {
          return new Copied(written, null, false, new IOException("standard output is closed"));
        }
        return new Copied(written, null, false, null);
      } catch (IOException e) {
        return new Copied(written, null, false, e);
      } finally {
        if (file != null) {
          try {
            out.close();
          } catch (IOException e) {
            // the write failure, if any, was reported; a close failure after a flush loses nothing
          }
        }
      }
    } catch (IOException e) {
      // closing the body stream failed: the bytes were copied already
      return new Copied(written, null, false, null);
    } finally {
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException | RuntimeException e) {
      // the pending read fails either way
    }
  }
}
