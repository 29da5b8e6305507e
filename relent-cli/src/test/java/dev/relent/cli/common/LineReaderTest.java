package dev.relent.cli.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link LineReader}: the lines {@link BufferedReader} reads, and no line held over the limit. */
class LineReaderTest {
  private static List<String> lines(LineReader r) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line; (line = r.readLine()) != null; ) {
      out.add(line == LineReader.TOO_LONG ? "TOO_LONG" : line);
    }
    return out;
  }

  private static List<String> expected(String text, int max) throws IOException {
    List<String> out = new ArrayList<>();
    BufferedReader r = new BufferedReader(new StringReader(text));
    for (String line; (line = r.readLine()) != null; ) {
      out.add(line.length() > max ? "TOO_LONG" : line);
    }
    return out;
  }

  @Test
  void readsTheLinesABufferedReaderReadsWhateverTheBufferSize() throws IOException {
    // Seeded random texts of line ends (\n, \r, \r\n, next to each other and at the very end) and
    // short runs of letters, read with buffers of 1 to 8 characters, so that every end and every
    // \r\n falls across a buffer's edge somewhere.
    SplittableRandom random = new SplittableRandom(42);
    String[] parts = {"\n", "\r", "\r\n", "a", "bc", "def", "ghij", "\u00e9\u4e2d"};
    for (int round = 0; round < 3_000; round++) {
      StringBuilder text = new StringBuilder();
      int n = random.nextInt(12);
      for (int i = 0; i < n; i++) {
        text.append(parts[random.nextInt(parts.length)]);
      }
      int max = 1 + random.nextInt(6);
      int buffer = 1 + random.nextInt(8);
      String t = text.toString();
      assertThat(lines(new LineReader(new StringReader(t), max, buffer)))
          .as("%s, max %d, buffer %d", t.replace("\r", "\\r").replace("\n", "\\n"), max, buffer)
          .isEqualTo(expected(t, max));
    }
  }

  @Test
  void aLineOverTheLimitIsToldAndTheNextLineIsReadWhole() throws IOException {
    String text = "x".repeat(100) + "\n" + "short\r\n" + "y".repeat(11) + "\r" + "last";
    LineReader r = new LineReader(new StringReader(text), 10, 4);
    assertThat(r.readLine()).isSameAs(LineReader.TOO_LONG);
    assertThat(r.readLine()).isEqualTo("short");
    assertThat(r.readLine()).isSameAs(LineReader.TOO_LONG);
    assertThat(r.readLine()).isEqualTo("last");
    assertThat(r.readLine()).isNull();
    assertThat(new LineReader(new StringReader("exactly10!"), 10, 3).readLine())
        .isEqualTo("exactly10!");
  }
}
