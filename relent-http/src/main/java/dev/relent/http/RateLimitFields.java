package dev.relent.http;

import dev.relent.http.HintHeaders.Name;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The IETF dialects, as RFC 9651 structured fields: {@code RateLimit} as the current draft's List
 * ({@code "name";r=0;t=30}, joined with its {@code RateLimit-Policy} item by name), {@code
 * RateLimit} as the older drafts' Dictionary ({@code limit=100, remaining=0, reset=30}), {@code
 * RateLimit-Remaining} with {@code RateLimit-Limit} and {@code RateLimit-Reset}, and {@code
 * RateLimit-Policy} alone. A malformed field counts as absent. No string makes these methods throw.
 * Not thread-safe: one per response, read on the thread that reads it.
 */
final class RateLimitFields {
  private final HintHeaders headers;
  private final List<Policy> policies;
  private final String policySource;

  /** The IETF fields of one response; {@code RateLimit-Policy} is parsed here, once. */
  RateLimitFields(HintHeaders headers) {
    this.headers = headers;
    String field = headers.get(Name.RATE_LIMIT_POLICY);
    List<Policy> parsed = field == null ? null : policies(field);
    this.policies = parsed == null ? List.of() : parsed;
    this.policySource =
        policies.isEmpty() ? "" : "RateLimit-Policy: " + ResponseFacts.sanitize(field);
  }

  /**
   * The limits of the first IETF form present and well formed, or null when none is (then the
   * {@code X-} dialects are tried, and {@link #policiesAlone} last).
   */
  List<RateLimitStatus> read() {
    String rateLimit = headers.get(Name.RATE_LIMIT);
    if (rateLimit != null) {
      String source =
          "RateLimit: "
              + ResponseFacts.sanitize(rateLimit)
              + (policySource.isEmpty() ? "" : ", " + policySource);
      List<RateLimitStatus> current = currentDraft(rateLimit, policies, source);
      if (current != null) {
        return current;
      }
      RateLimitStatus older = olderDictionary(rateLimit, policies, source);
      if (older != null) {
        return List.of(older);
      }
    }
    RateLimitStatus separate = separateFields(headers, policies);
    return separate == null ? null : List.of(separate);
  }

  /** One status per {@code RateLimit-Policy} item, with no remaining; empty when none. */
  List<RateLimitStatus> policiesAlone() {
    List<RateLimitStatus> out = new ArrayList<>();
    for (Policy p : policies) {
      out.add(status(p.name(), p.quota(), null, null, null, p, policySource));
    }
    return List.copyOf(out);
  }

  /** The field as a structured-field List; null when it is malformed or empty (then ignored). */
  private static List<StructuredFields.Member> nonEmptyList(String value) {
    try {
      List<StructuredFields.Member> members = StructuredFields.parseList(value);
      return members.isEmpty() ? null : members;
    } catch (StructuredFields.MalformedFieldException e) {
      return null;
    }
  }

  /** {@code RateLimit: "name";r=0;t=30, ...}: every item a String with {@code r}; else null. */
  private static List<RateLimitStatus> currentDraft(
      String value, List<Policy> policies, String source) {
    List<StructuredFields.Member> members = nonEmptyList(value);
    if (members == null) {
      return null;
    }
    List<RateLimitStatus> out = new ArrayList<>();
    for (StructuredFields.Member m : members) {
      if (!(m instanceof StructuredFields.Item)
          || !(((StructuredFields.Item) m).value() instanceof String)) {
        return null;
      }
      String name = (String) ((StructuredFields.Item) m).value();
      Map<String, Object> params = m.parameters();
      Long r = count(params.get("r"));
      Object t = params.get("t");
      Long reset = count(t);
      Object pk = params.get("pk");
      if (r == null || (t != null && reset == null)) {
        return null;
      }
      if (pk != null && !(pk instanceof StructuredFields.ByteSequence)) {
        return null;
      }
      Policy policy = null;
      for (Policy p : policies) {
        if (name.equals(p.name())) {
          policy = p;
          break;
        }
      }
      out.add(
          status(
              name,
              policy == null ? null : policy.quota(),
              r,
              reset == null ? null : Duration.ofSeconds(reset),
              (StructuredFields.ByteSequence) pk,
              policy,
              source));
    }
    return List.copyOf(out);
  }

  /**
   * {@code RateLimit: limit=100, remaining=0, reset=30}, the older drafts' Dictionary; else null.
   */
  private static RateLimitStatus olderDictionary(
      String value, List<Policy> policies, String source) {
    Map<String, StructuredFields.Member> members;
    try {
      members = StructuredFields.parseDictionary(value);
    } catch (StructuredFields.MalformedFieldException e) {
      return null;
    }
    StructuredFields.Member remaining = members.get("remaining");
    StructuredFields.Member limit = members.get("limit");
    StructuredFields.Member reset = members.get("reset");
    Long r = count(remaining);
    Long l = count(limit);
    Long t = count(reset);
    if (r == null || (limit != null && l == null) || (reset != null && t == null)) {
      return null;
    }
    return olderForm(l, r, t, policies, source);
  }

  /** {@code RateLimit-Remaining} with {@code RateLimit-Limit} and {@code RateLimit-Reset}. */
  private static RateLimitStatus separateFields(HintHeaders headers, List<Policy> policies) {
    String remaining = headers.get(Name.RATE_LIMIT_REMAINING);
    Long r = remaining == null ? null : integerItem(remaining);
    if (r == null) {
      return null;
    }
    String limit = headers.get(Name.RATE_LIMIT_LIMIT);
    String reset = headers.get(Name.RATE_LIMIT_RESET);
    Long l = limit == null ? null : integerItem(limit);
    Long t = reset == null ? null : integerItem(reset);
    String source =
        "RateLimit-Remaining: "
            + ResponseFacts.sanitize(remaining)
            + (reset == null ? "" : ", RateLimit-Reset: " + ResponseFacts.sanitize(reset));
    return olderForm(l, r, t, policies, source);
  }

  /**
   * A limit of the older drafts, with the older policy that matches it ({@link #unnamedPolicy}).
   */
  private static RateLimitStatus olderForm(
      Long limit, long remaining, Long resetSeconds, List<Policy> policies, String source) {
    Policy policy = unnamedPolicy(policies, limit);
    return status(
        null,
        limit != null ? limit : policy == null ? null : policy.quota(),
        remaining,
        resetSeconds == null ? null : Duration.ofSeconds(resetSeconds),
        null,
        policy,
        source);
  }

  private static RateLimitStatus status(
      String name,
      Long limit,
      Long remaining,
      Duration reset,
      StructuredFields.ByteSequence pk,
      Policy policy,
      String source) {
    if (pk == null && policy != null) {
      pk = policy.partitionKey();
    }
    return new RateLimitStatus(
        Optional.ofNullable(name),
        limit == null ? OptionalLong.empty() : OptionalLong.of(limit),
        remaining == null ? OptionalLong.empty() : OptionalLong.of(remaining),
        Optional.ofNullable(reset),
        Optional.ofNullable(policy == null ? null : policy.window()),
        Optional.ofNullable(pk == null ? null : pk.base64()),
        policy == null ? RateLimitStatus.REQUESTS : policy.unit(),
        source);
  }

  /** One quota policy of {@code RateLimit-Policy}; {@code name} null in the older form. */
  private record Policy(
      String name,
      long quota,
      Duration window,
      String unit,
      StructuredFields.ByteSequence partitionKey) {}

  /**
   * {@code RateLimit-Policy}: a List of {@code "name";q=100;w=60} (current draft) or {@code
   * 100;w=60} (older drafts); null when malformed or empty (then the whole field is ignored).
   */
  private static List<Policy> policies(String value) {
    List<StructuredFields.Member> members = nonEmptyList(value);
    if (members == null) {
      return null;
    }
    List<Policy> out = new ArrayList<>();
    for (StructuredFields.Member m : members) {
      if (!(m instanceof StructuredFields.Item)) {
        return null;
      }
      Object v = ((StructuredFields.Item) m).value();
      Map<String, Object> params = m.parameters();
      String name = v instanceof String ? (String) v : null;
      Long quota = name != null ? count(params.get("q")) : count(v);
      Object w = params.get("w");
      Long window = count(w);
      Object qu = params.get("qu");
      Object pk = params.get("pk");
      if (quota == null
          || (w != null && (window == null || window == 0))
          || (qu != null && !(qu instanceof String))
          || (pk != null && !(pk instanceof StructuredFields.ByteSequence))) {
        return null;
      }
      out.add(
          new Policy(
              name,
              quota,
              window == null ? null : Duration.ofSeconds(window),
              qu == null ? RateLimitStatus.REQUESTS : (String) qu,
              (StructuredFields.ByteSequence) pk));
    }
    return out;
  }

  /** The older form's policy: the one whose quota is the limit, else the first. */
  private static Policy unnamedPolicy(List<Policy> policies, Long limit) {
    Policy first = null;
    for (Policy p : policies) {
      if (p.name() == null) {
        if (limit != null && p.quota() == limit) {
          return p;
        }
        first = first == null ? p : first;
      }
    }
    return first;
  }

  /** A non-negative Integer, bare or as an Item's value; null otherwise. */
  private static Long count(Object value) {
    Object v =
        value instanceof StructuredFields.Item ? ((StructuredFields.Item) value).value() : value;
    return v instanceof Long && (Long) v >= 0 ? (Long) v : null;
  }

  /** A field whose value is a non-negative Integer Item ({@code RateLimit-Remaining: 0}). */
  private static Long integerItem(String value) {
    try {
      return count(StructuredFields.parseItem(value));
    } catch (StructuredFields.MalformedFieldException e) {
      return null;
    }
  }
}
