package dev.relent.mockserver;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the few places allowed to call the APIs that {@code build/forbidden-time.txt} bans (the
 * build suppresses any annotation of this name). This module cannot use relent-core's, on purpose.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
@interface SuppressForbidden {
  /**
   * Why the banned call is right here.
   *
   * @return the reason
   */
  String value();
}
