package dev.relent.testing;

import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import java.util.List;

/**
 * Entry point of Relent's AssertJ-style assertions. Its {@code assertThat} overloads sit beside
 * AssertJ's: import both statically and the compiler picks these for a journal and a mock server.
 */
public final class RelentAssertions {
  private RelentAssertions() {}

  /**
   * Starts assertions on what a mock server saw.
   *
   * @param journal the server's journal
   * @return an assertion
   */
  public static JournalAssert assertThat(List<JournalEntry> journal) {
    return new JournalAssert(journal);
  }

  /**
   * Starts assertions on a running mock server.
   *
   * @param server the server
   * @return an assertion
   */
  public static MockServerAssert assertThat(MockServer server) {
    return new MockServerAssert(server);
  }
}
