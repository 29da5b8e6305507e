package dev.relent.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real headless Chromium (Debian's {@code chromium} package, installed by {@code
 * scripts/ensure-chromium.sh}) for the tests of the HTML reports: the DOM it builds from a page,
 * and a screenshot of it. Fails, never skips, when Chromium is missing. In relent-charts' test-jar,
 * for the report tests of relent-sim and relent-cli too.
 */
public final class Chromium {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  private final Path dir;

  /**
   * @param dir where profiles and Chromium's output go
   */
  public Chromium(Path dir) {
    this.dir = dir;
  }

  /** The DOM Chromium built from a page, after layout; it must be complete. */
  public String dumpDom(Path html) throws Exception {
    Path out = run(html, "--dump-dom");
    String dom = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(dom).as("Chromium's DOM of %s", html).contains("</html>");
    return dom;
  }

  /** Takes a screenshot of a page in a window of the given size, as a PNG file. */
  public Png screenshot(Path html, int width, int height, Path png) throws Exception {
    run(
        html,
        "--window-size=" + width + "," + height,
        "--hide-scrollbars",
        "--screenshot=" + png.toAbsolutePath());
    return Png.read(png);
  }

  /** Runs headless Chromium on a file and returns the file holding what it printed. */
  private Path run(Path html, String... flags) throws Exception {
    if (!Files.isExecutable(CHROMIUM)) {
      fail(
          CHROMIUM
              + " is missing: the HTML report is tested in real headless Chromium."
              + " Install it with scripts/ensure-chromium.sh (Debian's chromium package).");
    }
    Path profile = Files.createTempDirectory(dir, "chromium-profile");
    List<String> command =
        new ArrayList<>(
            List.of(
                CHROMIUM.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile));
    command.addAll(List.of(flags));
    command.add(html.toUri().toString());
    Path out = Files.createTempFile(dir, "chromium", ".out");
    Path err = Files.createTempFile(dir, "chromium", ".err");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("Chromium did not finish within 120 s: " + command);
    }
    assertThat(p.exitValue())
        .as("Chromium's exit code; it said: %s", Files.readString(err))
        .isZero();
    return out;
  }
}
