package dev.relent.idempotency.spi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the one place allowed to read the system clock, which {@code build/forbidden-time.txt}
 * bans: the default {@link WallClock}. Say why in {@link #value()}.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD})
@interface SuppressForbidden {
  /**
   * Why the banned call is right here.
   *
   * @return the reason
   */
  String value();
}
