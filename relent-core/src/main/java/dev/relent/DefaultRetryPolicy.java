package dev.relent;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Predicate;

/**
 * The one {@link RetryPolicy} implementation. Classification order: a custom classifier decides
 * alone; otherwise interruption and cancellation abort, then abort conditions, then retry
 * conditions, then the default (failures retry unless retry conditions on failures were given;
 * results succeed). Every verdict is created here once, so classifying allocates nothing.
 */
final class DefaultRetryPolicy<R> implements RetryPolicy<R> {
  private static final Verdict INTERRUPTED = Verdict.abort("interrupted");
  private static final Verdict ABORT_ON = Verdict.abort("abortOn");
  private static final Verdict RETRY_ON = Verdict.retry("retryOn");
  private static final Verdict NOT_RETRY_ON = Verdict.abortFailure("not in retryOn");
  private static final Verdict ANY_FAILURE = Verdict.retry("failure");
  private static final Verdict ABORT_IF = Verdict.abort("abortIf");
  private static final Verdict RETRY_IF = Verdict.retry("retryIf");

  private final RetryPolicyConfig<R> config;
  private final OutcomeClassifier<R> classifier;
  private final boolean failureConditions;

  DefaultRetryPolicy(RetryPolicyConfig<R> config) {
    this.config = config;
    this.classifier = config.classifier().orElse(null);
    this.failureConditions = !config.retryOn().isEmpty() || !config.retryOnFailure().isEmpty();
  }

  @Override
  public RetryPolicyConfig<R> config() {
    return config;
  }

  @Override
  public Verdict classify(R result, Throwable failure) {
    if (classifier != null) {
      return classifier.classify(result, failure);
    }
    return failure != null ? classifyFailure(failure) : classifyResult(result);
  }

  private Verdict classifyFailure(Throwable failure) {
    if (failure instanceof InterruptedException || failure instanceof CancellationException) {
      return INTERRUPTED;
    }
    if (isAny(config.abortOn(), failure) || matches(config.abortOnFailure(), failure)) {
      return ABORT_ON;
    }
    if (!failureConditions) {
      return ANY_FAILURE;
    }
    if (isAny(config.retryOn(), failure) || matches(config.retryOnFailure(), failure)) {
      return RETRY_ON;
    }
    return NOT_RETRY_ON;
  }

  private Verdict classifyResult(R result) {
    if (matches(config.abortIf(), result)) {
      return ABORT_IF;
    }
    if (matches(config.retryIf(), result)) {
      return RETRY_IF;
    }
    return Verdict.SUCCESS;
  }

  private static boolean isAny(List<Class<? extends Throwable>> types, Throwable failure) {
    for (int i = 0; i < types.size(); i++) {
      if (types.get(i).isInstance(failure)) {
        return true;
      }
    }
    return false;
  }

  private static <T> boolean matches(List<Predicate<? super T>> predicates, T value) {
    for (int i = 0; i < predicates.size(); i++) {
      if (predicates.get(i).test(value)) {
        return true;
      }
    }
    return false;
  }
}
