package dev.relent;

/** The one {@link RetryPolicy}: its frozen settings. */
final class RetryPolicyImpl implements RetryPolicy {
  static final RetryPolicy DEFAULT = new RetryPolicyImpl(RetryPolicyConfig.DEFAULTS);

  private final RetryPolicyConfig config;

  RetryPolicyImpl(RetryPolicyConfig config) {
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

  @Override
  public String toString() {
    return "RetryPolicy" + config.settings();
  }
}
