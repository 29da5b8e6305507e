package dev.relent.internal;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the few places allowed to call the APIs that {@code build/forbidden-time.txt} bans: the
 * default implementations of the time and randomness SPI. Say why in {@link #value()}.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface SuppressForbidden {
  /**
   * Why the banned call is right here.
   *
   * @return the reason
   */
  String value();
}
