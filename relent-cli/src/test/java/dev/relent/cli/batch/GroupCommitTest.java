package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group commit: every line written whole, once, in each writer's order; forces shared. */
class GroupCommitTest {
  @TempDir Path dir;

  @Test
  void concurrentWritersEachFindTheirLinesOnTheDiskInTheirOrder() throws Exception {
    Path file = dir.resolve("j");
    int threads = 16;
    int each = 200;
    try (FileChannel ch =
            FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        GroupCommit commits = new GroupCommit(ch, "test-committer")) {
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> workers = new ArrayList<>();
      List<Throwable> failures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        Thread w =
            new Thread(
                () -> {
                  try {
                    go.await();
                    for (int i = 0; i < each; i++) {
                      commits.commit(("w" + me + " " + i + "\n").getBytes(StandardCharsets.UTF_8));
                      // returned: the line is on the disk already
                      assertThat(ch.size()).isPositive();
                    }
                  } catch (Throwable e) {
                    synchronized (failures) {
                      failures.add(e);
                    }
                  }
                });
        workers.add(w);
        w.start();
      }
      go.countDown();
      for (Thread w : workers) {
        w.join();
      }
      assertThat(failures).isEmpty();
      assertThat(commits.groups()).isBetween(1L, (long) threads * each);
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(threads * each);
    int[] next = new int[threads];
    for (String line : lines) {
      String[] parts = line.split(" ");
      int w = Integer.parseInt(parts[0].substring(1));
      assertThat(Integer.parseInt(parts[1])).as(line).isEqualTo(next[w]++);
    }
  }

  @Test
  void anInterruptedWriterStillWaitsForItsLineAndKeepsTheInterrupt() throws Exception {
    Path file = dir.resolve("j");
    try (FileChannel ch =
            FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        GroupCommit commits = new GroupCommit(ch, "test-committer")) {
      Thread.currentThread().interrupt();
      commits.commit("a\n".getBytes(StandardCharsets.UTF_8));
      assertThat(Thread.interrupted()).isTrue();
      commits.commit("b\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(Files.readAllLines(file)).containsExactly("a", "b");
  }

  @Test
  void aFailedWriteFailsThatCommitAndEveryLaterOne() throws Exception {
    Path file = dir.resolve("j");
    Files.writeString(file, "");
    FileChannel readOnly = FileChannel.open(file, StandardOpenOption.READ);
    try (GroupCommit commits = new GroupCommit(readOnly, "test-committer")) {
      assertThatThrownBy(() -> commits.commit("a\n".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(IOException.class);
      assertThatThrownBy(() -> commits.commit("b\n".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(IOException.class);
    } finally {
      readOnly.close();
    }
  }

  @Test
  void theFramingSeesTheLinesInTheOrderTheyReachTheFile() throws Exception {
    Path file = dir.resolve("j");
    int threads = 8;
    int each = 100;
    int[] framed = {0};
    GroupCommit.Framing numbered =
        record ->
            (framed[0]++ + " " + new String(record, StandardCharsets.UTF_8) + "\n")
                .getBytes(StandardCharsets.UTF_8);
    try (FileChannel ch =
            FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        GroupCommit commits = new GroupCommit(ch, "test-committer", numbered)) {
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        Thread w =
            new Thread(
                () -> {
                  for (int i = 0; i < each; i++) {
                    try {
                      if (i % 10 == 9) {
                        commits.enqueue(("w" + me).getBytes(StandardCharsets.UTF_8));
                      } else {
                        commits.commit(("w" + me).getBytes(StandardCharsets.UTF_8));
                      }
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  }
                });
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      commits.flush();
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(threads * each);
    for (int i = 0; i < lines.size(); i++) {
      assertThat(lines.get(i)).startsWith(i + " w");
    }
  }

  @Test
  void aFailedGroupAlsoFailsTheLinesQueuedBehindIt() throws Exception {
    Path file = dir.resolve("j");
    Files.writeString(file, "");
    FileChannel readOnly = FileChannel.open(file, StandardOpenOption.READ);
    try (GroupCommit commits = new GroupCommit(readOnly, "test-committer")) {
      List<GroupCommit.Group> queued = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        try {
          queued.add(commits.enqueue(("line " + i + "\n").getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
          break; // the first group failed already: later lines are refused at once
        }
      }
      assertThat(queued).isNotEmpty();
      // Every line queued, in whichever group, fails: none waits for ever.
      for (GroupCommit.Group g : queued) {
        assertThatThrownBy(g::await).isInstanceOf(IOException.class);
      }
      assertThatThrownBy(commits::flush).isInstanceOf(IOException.class);
      assertThatThrownBy(() -> commits.enqueue("x\n".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(IOException.class);
    } finally {
      readOnly.close();
    }
  }
}
