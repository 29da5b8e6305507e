package dev.relent.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Appends lines to a file and makes them durable in groups: every line handed to {@link #commit}
 * while the previous group is being forced joins the next group, which is written with one {@code
 * write} and forced with one {@link FileChannel#force}. Each caller returns only once its own line
 * is on the disk, so the guarantee of one force per record holds while N concurrent writers pay for
 * one force instead of N.
 *
 * <p>Design: one committer thread owns the channel; callers queue their bytes under a monitor and
 * wait on it. The committer is never interrupted (a {@link FileChannel} is closed for good when a
 * thread blocked in it is interrupted, and Ctrl-C interrupts the batch's workers), and callers wait
 * uninterruptibly, keeping the interrupt for later. Lines are written in the order they were
 * queued. A failed write or force fails its whole group and every later commit with the same error:
 * what is on the disk past the last good force is unknown.
 *
 * <p>Thread-safe.
 */
final class GroupCommit implements AutoCloseable {
  /** Lines queued without waiting, at most, before {@link #enqueue} waits. */
  static final int MAX_PENDING = 4096;

  private final FileChannel channel;
  private final Thread committer;

  // Guarded by this.
  private List<byte[]> pending = new ArrayList<>();
  private long queued;
  private long durable;
  private long groups;
  private IOException failed;
  private boolean closed;

  /**
   * Starts the committer thread.
   *
   * @param channel an open channel; lines are appended at its end
   * @param name the committer thread's name
   */
  GroupCommit(FileChannel channel, String name) {
    this.channel = channel;
    this.committer = new Thread(this::run, name);
    committer.setDaemon(true);
    committer.start();
  }

  /**
   * Appends a line and returns once it is forced to the disk.
   *
   * @param line the bytes, newline included
   * @throws IOException if the line, or one before it, could not be written or forced, or the
   *     journal was closed
   */
  void commit(byte[] line) throws IOException {
    await(enqueue(line));
  }

  /**
   * Queues a line without waiting for it to be durable; waits only while many lines are queued
   * already, so that a fast producer cannot fill the heap.
   *
   * @return the line's number, for {@link #await}
   * @throws IOException if an earlier line could not be written or forced, or the file was closed
   */
  long enqueue(byte[] line) throws IOException {
    boolean interrupted = false;
    try {
      synchronized (this) {
        while (pending.size() >= MAX_PENDING && failed == null && !closed) {
          try {
            wait();
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (failed != null) {
          throw new IOException(failed.getMessage(), failed);
        }
        if (closed) {
          throw new IOException("the journal is closed");
        }
        pending.add(line);
        notifyAll();
        return ++queued;
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Waits until every line queued so far is durable.
   *
   * @throws IOException if one could not be written or forced
   */
  void flush() throws IOException {
    long last;
    synchronized (this) {
      last = queued;
    }
    await(last);
  }

  private void await(long mine) throws IOException {
    boolean interrupted = false;
    try {
      synchronized (this) {
        while (durable < mine && failed == null) {
          try {
            wait();
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (durable < mine) {
          throw new IOException(failed.getMessage(), failed);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    while (true) {
      List<byte[]> group;
      long upTo;
      synchronized (this) {
        while (pending.isEmpty() && !closed) {
          try {
            wait();
          } catch (InterruptedException e) {
            // nobody interrupts the committer; keep serving
          }
        }
        if (pending.isEmpty()) {
          return;
        }
        group = pending;
        pending = new ArrayList<>();
        upTo = queued;
        notifyAll(); // room for producers waiting in enqueue
      }
      IOException error = null;
      try {
        write(group);
      } catch (IOException e) {
        error = e;
      } catch (RuntimeException e) {
        error = new IOException("cannot write the journal: " + e, e);
      }
      synchronized (this) {
        if (error != null) {
          failed = error;
        } else {
          durable = upTo;
          groups++;
        }
        notifyAll();
        if (error != null) {
          return;
        }
      }
    }
  }

  private void write(List<byte[]> group) throws IOException {
    int size = 0;
    for (byte[] line : group) {
      size += line.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    for (byte[] line : group) {
      b.put(line);
    }
    b.flip();
    long at = channel.size();
    while (b.hasRemaining()) {
      at += channel.write(b, at);
    }
    channel.force(false);
  }

  /** The groups forced so far: at most one per line committed, far fewer under contention. */
  synchronized long groups() {
    return groups;
  }

  /** Lets the committer finish what is queued, then stops it. Waits at most a few seconds. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    boolean interrupted = false;
    // At most 50 joins of 100 ms: a disk that hangs must not hang the exit.
    for (int i = 0; i < 50 && committer.isAlive(); i++) {
      try {
        committer.join(100);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
