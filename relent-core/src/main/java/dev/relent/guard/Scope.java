package dev.relent.guard;

import java.util.Locale;
import java.util.Objects;

/**
 * Whose limit it is: a limit belongs to a scope, the account, an API key or tenant, an endpoint (by
 * route template, not raw URL), or any key the caller derives. A {@link GuardRegistry} hands out
 * guards per scope and holds each scope's pause; one request is governed by several scopes,
 * broadest first (the account, then the key, then the endpoint).
 *
 * <p>A scope is its kind and its name: {@code Scope.endpoint("GET api.example.com/v1/items/{id}")}.
 * The name is shown in messages, logs and summaries, so it must never carry a secret: an API key is
 * named by a short hash of it, never by its value. Immutable and thread-safe; equal when kind and
 * name are.
 *
 * @param kind what the scope stands for
 * @param name the scope's name: 1 to {@value #MAX_NAME_LENGTH} characters, no control characters,
 *     never a secret
 */
public record Scope(Kind kind, String name) {
  /** The longest name accepted, in characters. */
  public static final int MAX_NAME_LENGTH = 200;

  /** What a scope stands for. */
  public enum Kind {
    /** The whole account (or host): every request to it. */
    ACCOUNT,
    /** One API key or tenant of the account. */
    KEY,
    /** One endpoint: a method and a route template. */
    ENDPOINT,
    /** A key the caller derives from the request. */
    CUSTOM;

    private final String slug = name().toLowerCase(Locale.ROOT);

    /**
     * Returns the kind's name in lower case, as {@link #parse} reads it: {@code account}, {@code
     * key}, {@code endpoint}, {@code custom}.
     *
     * @return the name
     */
    public String slug() {
      return slug;
    }

    /**
     * Reads a kind by its {@link #slug()}, ignoring case.
     *
     * @param name the name
     * @return the kind
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if it names no kind, listing those there are
     */
    public static Kind parse(String name) {
      Objects.requireNonNull(name, "name cannot be null");
      for (Kind kind : values()) {
        if (kind.slug().equals(name.trim().toLowerCase(Locale.ROOT))) {
          return kind;
        }
      }
      throw new IllegalArgumentException(
          "unknown scope kind \"" + name + "\"; use account, key, endpoint or custom");
    }
  }

  /**
   * Checks the kind and the name; {@link #of} and the factories of each kind make scopes through
   * it.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the name is blank, too long or has a control character
   */
  public Scope {
    Objects.requireNonNull(kind, "kind cannot be null");
    Objects.requireNonNull(name, "name cannot be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("scope name must not be blank: \"" + name + "\"");
    }
    if (name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "scope name must be at most "
              + MAX_NAME_LENGTH
              + " characters: "
              + name.length()
              + " given");
    }
    for (int i = 0; i < name.length(); i++) {
      if (Character.isISOControl(name.charAt(i))) {
        throw new IllegalArgumentException(
            "scope name must not contain control characters: character "
                + i
                + " is U+"
                + String.format(Locale.ROOT, "%04X", (int) name.charAt(i)));
      }
    }
  }

  /**
   * Returns a scope.
   *
   * @param kind what it stands for
   * @param name its name: 1 to {@value #MAX_NAME_LENGTH} characters, no control characters, never a
   *     secret
   * @return the scope
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the name is blank, too long or has a control character
   */
  public static Scope of(Kind kind, String name) {
    return new Scope(kind, name);
  }

  /**
   * Returns the scope of a whole account, usually named by its host.
   *
   * @param name e.g. {@code api.example.com}
   * @return the scope
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException as {@link #of} throws
   */
  public static Scope account(String name) {
    return of(Kind.ACCOUNT, name);
  }

  /**
   * Returns the scope of one API key or tenant; name it by a short hash, never by the key.
   *
   * @param name e.g. {@code X-Api-Key#3fa1c2}
   * @return the scope
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException as {@link #of} throws
   */
  public static Scope key(String name) {
    return of(Kind.KEY, name);
  }

  /**
   * Returns the scope of one endpoint: a method and a route template.
   *
   * @param name e.g. {@code GET api.example.com/v1/items/{id}}
   * @return the scope
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException as {@link #of} throws
   */
  public static Scope endpoint(String name) {
    return of(Kind.ENDPOINT, name);
  }

  /**
   * Returns a scope the caller derives.
   *
   * @param name the derived key
   * @return the scope
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException as {@link #of} throws
   */
  public static Scope custom(String name) {
    return of(Kind.CUSTOM, name);
  }

  /** Returns {@code endpoint GET api.example.com/v1/items/{id}}: the kind, then the name. */
  @Override
  public String toString() {
    return kind.slug() + " " + name;
  }
}
