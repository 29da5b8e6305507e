package dev.relent.cli.batch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Appends lines to a file and makes them durable in groups: every line handed to {@link #commit}
 * while the previous group is being forced joins the next group, which is written with one {@code
 * write} and forced with one {@link FileChannel#force}. Each caller returns only once its own line
 * is on the disk, so the guarantee of one force per record holds while N concurrent writers pay for
 * one force instead of N.
 *
 * <p>Design: one committer thread owns the channel. Callers add their bytes to the open {@link
 * Group} under a lock and then wait on that group alone; the committer takes the open group, puts a
 * new one in its place, writes and forces the one it took, and wakes its waiters. A force wakes
 * only the writers whose lines it made durable, and a queued line wakes only the committer, and
 * only when it was idle: with 64 writers a group costs one wake-up per writer, not one per writer
 * per line queued. A {@link Framing}, if given, turns each record into its line under the same
 * lock, in the order the lines reach the file (the journal's checksum chain needs that order). The
 * committer is never interrupted (a {@link FileChannel} is closed for good when a thread blocked in
 * it is interrupted, and Ctrl-C interrupts the batch's workers), and callers wait uninterruptibly,
 * keeping the interrupt for later. Lines are written in the order they were queued. A failed write
 * or force fails its whole group, the group queued behind it and every later commit with the same
 * error: what is on the disk past the last good force is unknown.
 *
 * <p>Thread-safe.
 */
final class GroupCommit implements AutoCloseable {
  /** Lines queued without waiting, at most, before {@link #enqueue} waits. */
  static final int MAX_PENDING = 4096;

  /**
   * Turns a record into the line written for it. Called under the queue's lock, once per record, in
   * the order the lines reach the file; it may keep state that depends on that order.
   */
  interface Framing {
    /** The line for {@code record}, newline included. */
    byte[] frame(byte[] record);
  }

  /** Lines that are forced together, and the outcome their writers wait for. */
  static final class Group {
    // Guarded by the GroupCommit's lock until the committer takes the group.
    private final List<byte[]> lines = new ArrayList<>();
    private int bytes;
    // Guarded by this.
    private boolean done;
    private IOException error;

    private synchronized void finish(IOException e) {
      done = true;
      error = e;
      notifyAll();
    }

    /**
     * Waits, uninterruptibly, until the group is durable or failed.
     *
     * @throws IOException if it failed
     */
    void await() throws IOException {
      boolean interrupted = false;
      try {
        synchronized (this) {
          while (!done) {
            try {
              wait();
            } catch (InterruptedException e) {
              interrupted = true;
            }
          }
          if (error != null) {
            throw new IOException(error.getMessage(), error);
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private final FileChannel channel;
  private final Framing framing;
  private final Thread committer;
  private final ReentrantLock lock = new ReentrantLock();
  // The committer waits on work while the open group is empty; producers on room while it is full.
  private final Condition work = lock.newCondition();
  private final Condition room = lock.newCondition();

  // Guarded by lock.
  private Group open = new Group();
  private Group newest;
  private long groups;
  private IOException failed;
  private boolean closed;

  /**
   * Starts the committer thread; lines are written as given.
   *
   * @param channel an open channel; lines are appended at its end
   * @param name the committer thread's name
   */
  GroupCommit(FileChannel channel, String name) {
    this(channel, name, record -> record);
  }

  /**
   * Starts the committer thread.
   *
   * @param channel an open channel; lines are appended at its end
   * @param name the committer thread's name
   * @param framing what turns each record into its line, in file order
   */
  GroupCommit(FileChannel channel, String name, Framing framing) {
    this.channel = channel;
    this.framing = framing;
    this.committer = new Thread(this::run, name);
    committer.setDaemon(true);
    committer.start();
  }

  /**
   * Appends a record and returns once its line is forced to the disk.
   *
   * @param record the bytes (a whole line if there is no framing)
   * @throws IOException if the line, or one before it, could not be written or forced, or the
   *     journal was closed
   */
  void commit(byte[] record) throws IOException {
    enqueue(record).await();
  }

  /**
   * Queues a record without waiting for it to be durable; waits only while many lines are queued
   * already, so that a fast producer cannot fill the heap.
   *
   * @return the group the line joined
   * @throws IOException if an earlier line could not be written or forced, or the file was closed
   */
  Group enqueue(byte[] record) throws IOException {
    boolean interrupted = false;
    lock.lock();
    try {
      while (open.lines.size() >= MAX_PENDING && failed == null && !closed) {
        try {
          room.await();
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
      byte[] line = framing.frame(record);
      Group g = open;
      g.lines.add(line);
      g.bytes += line.length;
      newest = g;
      if (g.lines.size() == 1) {
        work.signal(); // the committer waits only while the open group is empty
      }
      return g;
    } finally {
      lock.unlock();
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
    Group g;
    lock.lock();
    try {
      g = newest;
    } finally {
      lock.unlock();
    }
    // Groups are forced in order: the newest one durable means every one before it is too.
    if (g != null) {
      g.await();
    }
  }

  private void run() {
    while (true) {
      Group group;
      lock.lock();
      try {
        while (open.lines.isEmpty() && !closed) {
          work.awaitUninterruptibly(); // nobody interrupts the committer; keep serving
        }
        if (open.lines.isEmpty()) {
          return;
        }
        group = open;
        open = new Group();
        room.signalAll();
      } finally {
        lock.unlock();
      }
      IOException error = null;
      try {
        write(group);
      } catch (IOException e) {
        error = e;
      } catch (RuntimeException e) {
        error = new IOException("cannot write the journal: " + e, e);
      }
      if (error == null) {
        lock.lock();
        try {
          groups++;
        } finally {
          lock.unlock();
        }
        group.finish(null);
        continue;
      }
      Group behind;
      lock.lock();
      try {
        failed = error;
        behind = open;
        open = new Group();
        room.signalAll();
      } finally {
        lock.unlock();
      }
      group.finish(error);
      behind.finish(error);
      return;
    }
  }

  private void write(Group group) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(group.bytes);
    for (byte[] line : group.lines) {
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
  long groups() {
    lock.lock();
    try {
      return groups;
    } finally {
      lock.unlock();
    }
  }

  /** Lets the committer finish what is queued, then stops it. Waits at most a few seconds. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      work.signal();
      room.signalAll();
    } finally {
      lock.unlock();
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
