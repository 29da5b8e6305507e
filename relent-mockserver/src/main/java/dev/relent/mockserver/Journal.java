package dev.relent.mockserver;

import io.netty.handler.codec.http.HttpHeaders;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The bounded request journal: a ring buffer of the last {@code capacity} records.
 *
 * <p>Design: writers take a sequence number from one counter and store their record in slot {@code
 * seq % capacity}; nothing is locked and nothing grows. A record keeps references to the request's
 * own header object and raw target; redaction happens when someone reads, so the hot path copies
 * nothing. Readers walk the last {@code capacity} sequence numbers and keep the slots whose record
 * carries the expected number, so a slot overwritten during the walk is skipped, never shown out of
 * order. Under a wrap-around race a record may be lost; the journal is a test aid, not an audit
 * log. Thread-safe.
 */
final class Journal {

  /** One request as recorded; fields are as received, redaction is the reader's job. */
  record Record(
      long seq,
      long arrivedMillis,
      String remote,
      String method,
      String uri,
      HttpHeaders headers,
      long bodyBytes,
      byte[] bodyDigest,
      String endpoint,
      int step,
      int status,
      InjectedFault fault,
      String outcome) {

    JournalEntry toEntry(long base, boolean onSystemClock) {
      Map<String, List<String>> hs = new LinkedHashMap<>();
      for (Map.Entry<String, String> h : headers) {
        String value = Redaction.isSecretHeader(h.getKey()) ? JournalEntry.REDACTED : h.getValue();
        hs.computeIfAbsent(h.getKey(), k -> new ArrayList<>()).add(value);
      }
      hs.replaceAll((k, v) -> List.copyOf(v));
      return new JournalEntry(
          seq - base + 1,
          Instant.ofEpochMilli(arrivedMillis),
          remote,
          method,
          Redaction.redactUri(uri),
          Collections.unmodifiableMap(hs),
          bodyBytes,
          bodyDigest == null ? null : HexFormat.of().formatHex(bodyDigest),
          endpoint,
          step,
          status,
          fault == null ? null : fault.token(),
          outcome,
          onSystemClock);
    }
  }

  static final int DEFAULT_CAPACITY = 10_000;
  static final IntRange CAPACITY = new IntRange("journalCapacity", 1, 10_000_000);

  private final int capacity;
  private final AtomicReferenceArray<Record> slots;
  private final AtomicLong next = new AtomicLong();
  // Sequence numbers below this were cleared by a reset.
  private volatile long base;
  // Whether arrivals are stamped by the system clock (real gaps) rather than a virtual one.
  private final boolean onSystemClock;

  Journal(int capacity, boolean onSystemClock) {
    this.capacity = capacity;
    this.onSystemClock = onSystemClock;
    this.slots = new AtomicReferenceArray<>(capacity);
  }

  int capacity() {
    return capacity;
  }

  long nextSeq() {
    return next.getAndIncrement();
  }

  void add(Record r) {
    slots.set((int) (r.seq() % capacity), r);
  }

  /** Records since the last reset, oldest first, at most {@code capacity}. */
  List<JournalEntry> entries() {
    long b = base;
    long end = next.get();
    long start = Math.max(b, end - capacity);
    List<JournalEntry> out = new ArrayList<>((int) Math.max(0, end - start));
    for (long s = start; s < end; s++) {
      Record r = slots.get((int) (s % capacity));
      if (r != null && r.seq() == s) {
        out.add(r.toEntry(b, onSystemClock));
      }
    }
    return out;
  }

  /** Requests recorded since the last reset, kept or not. */
  long total() {
    return next.get() - base;
  }

  void clear() {
    base = next.get();
  }
}
