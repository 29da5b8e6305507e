package dev.relent.spring;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.util.unit.DataSize;

/**
 * Turns what stopped the application over a {@code relent.*} property into Spring Boot's start-up
 * report, in words a user acts on:
 *
 * <ul>
 *   <li>a {@link RelentPropertyException}: the property, its value and what is allowed;
 *   <li>a key under {@code relent} that no setting has (Spring's binder leaves it unbound): the
 *       key, where it was set, and the nearest key there is by edit distance ({@code max-retires}:
 *       the nearest is {@code max-retries}); its value is not repeated, since a key nobody reads
 *       may hold anything, a credential included;
 *   <li>a value the binder cannot convert ({@code deadline=thirty seconds}): the property, the
 *       value, and how such a value is written.
 * </ul>
 *
 * <p>It runs before Spring Boot's own analyzers ({@link Ordered#HIGHEST_PRECEDENCE}), whose report
 * of the same failures names the binder's internal target ({@code Bindable@...}); a failure that is
 * not about {@code relent.*} is left to them. Registered in {@code META-INF/spring.factories};
 * stateless and thread-safe.
 */
public final class RelentPropertyFailureAnalyzer implements FailureAnalyzer, Ordered {
  private static final ConfigurationPropertyName RELENT = ConfigurationPropertyName.of("relent");

  private static final String DOCS =
      "every relent.* key and its default is listed in docs/spring-boot.md.";

  /**
   * Every key of a client, relative to {@code relent.clients.NAME.} or {@code relent.defaults.}.
   */
  private static final List<String> CLIENT_KEYS = keys(RelentProperties.Client.class, "");

  /** Created by Spring Boot. */
  public RelentPropertyFailureAnalyzer() {}

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    RelentPropertyException refused = find(failure, RelentPropertyException.class);
    if (refused != null) {
      return new FailureAnalysis(
          refused.getMessage(),
          "Change "
              + refused.property()
              + " in the application's configuration (application.properties or .yml, an"
              + " environment variable, a command-line argument), or remove it for Relent's"
              + " default; "
              + DOCS,
          refused);
    }
    BindException bind = find(failure, BindException.class);
    if (bind == null || !(RELENT.equals(bind.getName()) || RELENT.isAncestorOf(bind.getName()))) {
      return null;
    }
    UnboundConfigurationPropertiesException unbound =
        find(bind, UnboundConfigurationPropertiesException.class);
    if (unbound != null) {
      return unknownKeys(unbound, bind);
    }
    ConfigurationProperty property = bind.getProperty();
    if (property == null) {
      return null;
    }
    String name = property.getName().toString();
    return new FailureAnalysis(
        name
            + ": \""
            + property.getValue()
            + "\" "
            + expected(bind.getTarget().getType())
            + origin(property),
        "Change "
            + name
            + " in the application's configuration (application.properties or .yml, an"
            + " environment variable, a command-line argument), or remove it for Relent's"
            + " default; "
            + DOCS,
        bind);
  }

  private static FailureAnalysis unknownKeys(
      UnboundConfigurationPropertiesException unbound, BindException bind) {
    Set<String> names = new TreeSet<>();
    List<String> lines = new ArrayList<>();
    unbound.getUnboundProperties().stream()
        .sorted((a, b) -> a.getName().toString().compareTo(b.getName().toString()))
        .forEach(
            p -> {
              String name = p.getName().toString();
              names.add(name);
              String nearest = nearest(p.getName());
              lines.add(
                  name
                      + " is not a Relent property"
                      + (nearest == null
                          ? "; no key of Relent's is near it"
                          : "; the nearest is " + nearest)
                      + origin(p));
            });
    return new FailureAnalysis(
        String.join("\n", lines),
        "Rename or remove " + String.join(", ", names) + "; " + DOCS,
        bind);
  }

  /**
   * The nearest key there is to an unknown one under {@code relent}: under {@code
   * relent.clients.NAME.} or {@code relent.defaults.}, the nearest key of a client by edit
   * distance; directly under {@code relent}, the nearest of {@code clients} and {@code defaults} in
   * place of its first element. Null when even the nearest differs in more than half its letters,
   * which is no longer a typo.
   */
  static String nearest(ConfigurationPropertyName name) {
    int size = name.getNumberOfElements();
    if (size < 2) {
      return null;
    }
    String second = name.getElement(1, ConfigurationPropertyName.Form.DASHED);
    boolean clients = second.equals("clients") && size >= 4;
    boolean defaults = second.equals("defaults") && size >= 3;
    if (!clients && !defaults) {
      String root = closest(second, List.of("clients", "defaults"));
      if (root == null) {
        return null;
      }
      StringBuilder out = new StringBuilder("relent.").append(root);
      for (int i = 2; i < size; i++) {
        out.append('.').append(name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL));
      }
      return out.toString();
    }
    int first = clients ? 3 : 2;
    StringBuilder key = new StringBuilder();
    for (int i = first; i < size; i++) {
      key.append(key.length() == 0 ? "" : ".")
          .append(name.getElement(i, ConfigurationPropertyName.Form.DASHED));
    }
    String found = closest(key.toString(), CLIENT_KEYS);
    if (found == null) {
      return null;
    }
    return (clients
            ? "relent.clients." + name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL) + "."
            : "relent.defaults.")
        + found;
  }

  private static String closest(String key, List<String> known) {
    String best = null;
    int distance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(key, k);
      if (d < distance) {
        distance = d;
        best = k;
      }
    }
    return distance * 2 <= key.length() ? best : null;
  }

  /** Levenshtein's edit distance: insertions, deletions and substitutions of one character. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  /** The dashed keys of a properties class, nested groups spelled out ({@code backoff.base}). */
  private static List<String> keys(Class<?> type, String prefix) {
    List<String> out = new ArrayList<>();
    for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(type)) {
      if (d.getReadMethod() == null || d.getName().equals("class")) {
        continue;
      }
      String key = prefix + dashed(d.getName());
      Class<?> nested = d.getPropertyType();
      if (nested.getEnclosingClass() == RelentProperties.class) {
        out.addAll(keys(nested, key + "."));
      } else {
        out.add(key);
      }
    }
    return out;
  }

  private static String dashed(String camel) {
    StringBuilder out = new StringBuilder();
    for (char c : camel.toCharArray()) {
      if (Character.isUpperCase(c)) {
        out.append('-').append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** How a value of the type is written, after "is not". */
  private static String expected(ResolvableType target) {
    Class<?> type = target.resolve(Object.class);
    if (type == java.time.Duration.class) {
      return "is not a duration: write it as 500ms, 30s, 1m or PT30S";
    }
    if (type == DataSize.class) {
      return "is not a size: write it as 64KB, 1MB or a number of bytes";
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "is not a whole number";
    }
    if (type == double.class || type == Double.class) {
      return "is not a number";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "is neither true nor false";
    }
    if (type.isEnum()) {
      return "is not one of "
          + java.util.Arrays.stream(type.getEnumConstants())
              .map(e -> ((Enum<?>) e).name().toLowerCase(Locale.ROOT))
              .collect(Collectors.joining(", "));
    }
    if (type == RelentProperties.Client.class) {
      return "is not a client's settings: they go under relent.clients.NAME., e.g."
          + " relent.clients.payments.base-url";
    }
    return "cannot be read as a " + type.getSimpleName();
  }

  private static String origin(ConfigurationProperty property) {
    return property.getOrigin() == null ? "" : " (from " + property.getOrigin() + ")";
  }

  private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }
}
