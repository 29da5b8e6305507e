package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.PacerState;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class GuardRegistryTest {
  private final FakeTime time = new FakeTime();
  private static final Scope ACCOUNT = Scope.account("api.example.com");
  private static final Scope ITEMS = Scope.endpoint("GET api.example.com/v1/items/{id}");
  private static final Scope USERS = Scope.endpoint("GET api.example.com/v1/users/{id}");
  private static final Scope ORDERS = Scope.endpoint("GET api.example.com/v1/orders/{id}");

  private long now() {
    return time.ticker().read();
  }

  @Test
  void handsOutOneSetOfGuardsPerScopeFromTheFactoryOfItsKind() {
    GuardRegistry registry =
        GuardRegistry.builder()
            .withPacer(Scope.Kind.ACCOUNT, s -> Pacer.of(10, Duration.ofSeconds(1)))
            .withRetryBudget(Scope.Kind.ENDPOINT, s -> RetryBudget.ofDefaults())
            .withTime(time)
            .build();

    ScopeGuards account = registry.guards(ACCOUNT);
    ScopeGuards items = registry.guards(ITEMS);

    assertThat(registry.guards(ACCOUNT)).isSameAs(account);
    assertThat(account.pacer()).isPresent();
    assertThat(account.retryBudget()).isEmpty();
    assertThat(items.pacer()).isEmpty();
    assertThat(items.retryBudget()).isPresent();
    assertThat(items.circuitBreaker()).isEmpty();
    assertThat(items.concurrencyLimit()).isEmpty();
    assertThat(registry.size()).isEqualTo(2);
  }

  @Test
  void aPauseCanBeInspectedAndResumed() {
    GuardRegistry registry = GuardRegistry.builder().withTime(time).build();
    List<Scope> request = List.of(ACCOUNT, ITEMS);
    long until = now() + Duration.ofSeconds(30).toNanos();

    List<Scope> paused =
        registry.pause(
            request,
            ITEMS,
            until,
            Duration.ofDays(1).toNanos(),
            "HTTP 429 from GET https://api.example.com/v1/items/7 (Retry-After: 86400)",
            now());
    time.advance(Duration.ofSeconds(10));

    assertThat(paused).containsExactly(ITEMS);
    ScopeGuards items = registry.find(ITEMS).orElseThrow();
    assertThat(items.isPaused()).isTrue();
    assertThat(items.pauseRemaining()).isEqualTo(Duration.ofSeconds(20));
    assertThat(items.pausedUntil()).contains(FakeTime.DEFAULT_START.plusSeconds(30));
    assertThat(items.pauseCause())
        .contains("HTTP 429 from GET https://api.example.com/v1/items/7 (Retry-After: 86400)");
    assertThat(items.pauseAsked()).isEqualTo(Duration.ofDays(1));
    assertThat(registry.guards(ACCOUNT).isPaused()).isFalse();
    assertThat(registry.paused()).containsExactly(items);
    assertThat(items.toString())
        .isEqualTo(
            "endpoint GET api.example.com/v1/items/{id}: paused 20 s more by HTTP 429 from GET"
                + " https://api.example.com/v1/items/7 (Retry-After: 86400)");

    assertThat(registry.resume(ITEMS)).isTrue();
    assertThat(items.isPaused()).isFalse();
    assertThat(items.pauseCause()).isEmpty();
    assertThat(items.pauseCount()).isEqualTo(1);
    assertThat(items.lastPauseCause())
        .hasValueSatisfying(c -> assertThat(c).startsWith("HTTP 429"));
    assertThat(registry.resume(ITEMS)).isFalse();
    assertThat(registry.resume(USERS)).isFalse();
  }

  @Test
  void aPauseIsNeverShortenedButALongerOneReplacesTheCause() {
    ScopeGuards g = GuardRegistry.builder().withTime(time).build().guards(ITEMS);

    assertThat(g.pause(Duration.ofSeconds(30), "first")).isTrue();
    assertThat(g.pause(Duration.ofSeconds(5), "shorter")).isFalse();
    assertThat(g.pauseCause()).contains("first");
    assertThat(g.pause(Duration.ofSeconds(60), "longer")).isTrue();
    assertThat(g.pauseCause()).contains("longer");
    assertThat(g.pauseRemaining()).isEqualTo(Duration.ofSeconds(60));
    time.advance(Duration.ofSeconds(60));
    assertThat(g.isPaused()).isFalse();
    assertThat(g.pausedUntil()).isEmpty();
    assertThat(g.pauseCause()).isEmpty();
  }

  @Test
  void severalEndpointsPausedWithinTheWindowPauseTheirAccount() {
    GuardRegistry registry =
        GuardRegistry.builder().withEscalation(3, Duration.ofSeconds(60)).withTime(time).build();
    long until = now() + Duration.ofSeconds(5).toNanos();

    registry.pause(List.of(ACCOUNT, ITEMS), ITEMS, until, 0, "HTTP 429 from items", now());
    time.advance(Duration.ofSeconds(1));
    registry.pause(List.of(ACCOUNT, USERS), USERS, until, 0, "HTTP 429 from users", now());
    assertThat(registry.guards(ACCOUNT).isPaused()).isFalse();
    time.advance(Duration.ofSeconds(1));
    List<Scope> third =
        registry.pause(List.of(ACCOUNT, ORDERS), ORDERS, until, 0, "HTTP 429 from orders", now());

    assertThat(third).containsExactly(ORDERS, ACCOUNT);
    assertThat(registry.guards(ACCOUNT).pauseCause().orElseThrow())
        .isEqualTo(
            "3 narrower scopes paused within 60 s (the limit is evidently this scope's); the"
                + " latest by HTTP 429 from orders");
  }

  @Test
  void pausesOutsideTheWindowDoNotEscalate() {
    GuardRegistry registry =
        GuardRegistry.builder().withEscalation(2, Duration.ofSeconds(10)).withTime(time).build();

    registry.pause(List.of(ACCOUNT, ITEMS), ITEMS, now() + 1_000, 0, "a", now());
    time.advance(Duration.ofSeconds(11));
    registry.pause(List.of(ACCOUNT, USERS), USERS, now() + 1_000, 0, "b", now());
    assertThat(registry.guards(ACCOUNT).isPaused()).isFalse();
    // the same endpoint twice is one endpoint
    registry.pause(List.of(ACCOUNT, USERS), USERS, now() + 2_000, 0, "c", now());
    assertThat(registry.guards(ACCOUNT).isPaused()).isFalse();
  }

  @Test
  void withoutEscalationOnlyTheTargetPauses() {
    GuardRegistry registry = GuardRegistry.builder().withoutEscalation().withTime(time).build();
    for (Scope endpoint : List.of(ITEMS, USERS, ORDERS)) {
      registry.pause(List.of(ACCOUNT, endpoint), endpoint, now() + 1_000, 0, "x", now());
    }
    assertThat(registry.guards(ACCOUNT).isPaused()).isFalse();
    assertThat(registry.paused()).hasSize(3);
  }

  @Test
  void idleScopesExpireOnAccessButPausedOnesStay() {
    GuardRegistry registry =
        GuardRegistry.builder().withIdleExpiry(Duration.ofMinutes(1)).withTime(time).build();
    ScopeGuards items = registry.guards(ITEMS);
    registry.guards(USERS).pause(Duration.ofMinutes(5), "HTTP 429");

    time.advance(Duration.ofMinutes(2));
    registry.guards(ACCOUNT); // any access sweeps

    assertThat(registry.find(ITEMS)).isEmpty();
    assertThat(registry.find(USERS)).isPresent();
    assertThat(registry.guards(ITEMS)).isNotSameAs(items);
  }

  @Test
  void aFullRegistryEvictsTheLeastRecentlyUsedScopeThatIsNotPaused() {
    GuardRegistry registry = GuardRegistry.builder().withMaxScopes(2).withTime(time).build();
    registry.guards(ITEMS).pause(Duration.ofMinutes(5), "HTTP 429");
    time.advance(Duration.ofSeconds(1));
    registry.guards(USERS);
    time.advance(Duration.ofSeconds(1));

    registry.guards(ORDERS);

    assertThat(registry.size()).isEqualTo(2);
    assertThat(registry.find(ITEMS)).isPresent();
    assertThat(registry.find(USERS)).isEmpty();
    assertThat(registry.find(ORDERS)).isPresent();
  }

  @Test
  void boundedUnderAFloodOfScopes() {
    GuardRegistry registry = GuardRegistry.builder().withMaxScopes(50).withTime(time).build();
    for (int i = 0; i < 10_000; i++) {
      registry.guards(Scope.custom("tenant-" + i));
      time.advance(Duration.ofMillis(1));
      assertThat(registry.size()).isLessThanOrEqualTo(50);
    }
    assertThat(registry.find(Scope.custom("tenant-9999"))).isPresent();
  }

  @Test
  void badSettingsAndNamesAreRefusedSayingWhatIsAllowed() {
    assertThatThrownBy(() -> GuardRegistry.builder().withMaxScopes(0))
        .hasMessage("maxScopes must be >= 1: 0");
    assertThatThrownBy(() -> GuardRegistry.builder().withEscalation(1, Duration.ofSeconds(1)))
        .hasMessage(
            "escalation needs at least 2 scopes: 1 (use withoutEscalation() to turn it off)");
    assertThatThrownBy(() -> GuardRegistry.builder().withIdleExpiry(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("idleExpiry must be > 0");
    assertThatThrownBy(() -> Scope.Kind.parse("host"))
        .hasMessage("unknown scope kind \"host\"; use account, key, endpoint or custom");
    assertThat(Scope.Kind.parse(" Endpoint")).isEqualTo(Scope.Kind.ENDPOINT);
    assertThatThrownBy(() -> Scope.account(" ")).hasMessage("scope name must not be blank: \" \"");
    assertThatThrownBy(() -> Scope.account("a\nb"))
        .hasMessage("scope name must not contain control characters: character 1 is U+000A");
    assertThatThrownBy(() -> Scope.account("x".repeat(201)))
        .hasMessage("scope name must be at most 200 characters: 201 given");
    GuardRegistry registry = GuardRegistry.builder().withTime(time).build();
    assertThatThrownBy(() -> registry.pause(List.of(ACCOUNT), ITEMS, 1, 0, "x", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not one of the request's scopes");
  }

  @Test
  void scopesAreValuesNamedByKindAndName() {
    assertThat(Scope.endpoint("GET h/x")).isEqualTo(Scope.of(Scope.Kind.ENDPOINT, "GET h/x"));
    assertThat(Scope.endpoint("GET h/x")).isNotEqualTo(Scope.custom("GET h/x"));
    assertThat(Scope.endpoint("GET h/x").hashCode())
        .isEqualTo(Scope.of(Scope.Kind.ENDPOINT, "GET h/x").hashCode());
    assertThat(Scope.key("X-Api-Key#3fa1c2")).hasToString("key X-Api-Key#3fa1c2");
  }

  @Test
  void aScopesPauseIsWrittenToItsPacerOnlyWhenThePacersStateIsShared() {
    // A state of this process that says it is shared, as a Redis state does.
    ForwardingPacerState shared =
        new ForwardingPacerState() {
          @Override
          public boolean isShared() {
            return true;
          }
        };
    PacerState own = PacerState.inMemory();
    Scope items = Scope.endpoint("/items/{id}");
    Scope users = Scope.endpoint("/users/{id}");
    GuardRegistry registry =
        GuardRegistry.builder()
            .withTime(time)
            .withPacer(
                Scope.Kind.ENDPOINT,
                scope ->
                    Pacer.builder()
                        .withRate(10, Duration.ofSeconds(1))
                        .withState(scope.equals(items) ? shared : own)
                        .build())
            .build();
    assertThat(registry.guards(items).pacer().orElseThrow().sharesState()).isTrue();
    assertThat(registry.guards(users).pacer().orElseThrow().sharesState()).isFalse();

    registry.pause(List.of(items), items, 5_000, 5_000, "HTTP 429", 0);
    registry.pause(List.of(users), users, 7_000, 7_000, "HTTP 429", 0);

    assertThat(shared.pausedUntil()).isEqualTo(5_000); // for every process on the state
    assertThat(own.pausedUntil()).isEqualTo(Long.MIN_VALUE); // the scope's own hold suffices
    // Resuming ends this process's hold; the shared pause runs its course.
    assertThat(registry.resume(items)).isTrue();
    assertThat(registry.guards(items).pausedUntilNanos()).isEqualTo(Long.MIN_VALUE);
    assertThat(shared.pausedUntil()).isEqualTo(5_000);
  }
}
