package dev.relent.internal.exec;

import dev.relent.RetryPolicy;
import dev.relent.RetryPolicyConfig;

/** The one {@link RetryPolicy}: its frozen settings. */
public final class RetryPolicyImpl implements RetryPolicy {
  /** How the configuration's text begins; the policy's own begins with its name instead. */
  private static final String CONFIG_NAME = "RetryPolicyConfig";

  private final RetryPolicyConfig config;

  /**
   * Creates the policy of the given settings.
   *
   * @param config the settings, already checked by {@link RetryPolicy.Builder#build()}
   */
  public RetryPolicyImpl(RetryPolicyConfig config) {
    this.config = config;
  }

  @Override
  public RetryPolicyConfig config() {
    return config;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RetryPolicyImpl && ((RetryPolicyImpl) other).config.equals(config);
  }

  @Override
  public int hashCode() {
    return config.hashCode();
  }

  /** The settings as the configuration lists them: {@code RetryPolicy[maxRetries=5, …]}. */
  @Override
  public String toString() {
    return "RetryPolicy" + config.toString().substring(CONFIG_NAME.length());
  }
}
