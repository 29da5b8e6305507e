package dev.relent.internal.exec;

import dev.relent.OutcomeClassifier;
import dev.relent.Verdict;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Predicate;

/**
 * The classifier an executor builds from its {@code retryOn} / {@code abortOn} / {@code retryIf} /
 * {@code abortIf} rules. Failures: interruption and cancellation abort; then {@code abortOn}; with
 * no {@code retryOn} rule every other failure is retried, otherwise only the ones a rule names.
 * Results: {@code abortIf} returns the result as it is, {@code retryIf} retries it, anything else
 * succeeds. Immutable and thread-safe; its verdicts are constants, so classifying allocates
 * nothing.
 */
public final class RuleClassifier<R> implements OutcomeClassifier<R> {
  private static final Verdict INTERRUPTED = Verdict.abort("interrupted");
  private static final Verdict ABORT_ON = Verdict.abort("abortOn");
  private static final Verdict RETRY_ON = Verdict.retry("retryOn");
  private static final Verdict NOT_RETRY_ON = Verdict.abortFailure("not in retryOn");
  private static final Verdict ANY_FAILURE = Verdict.retry("failure");
  private static final Verdict ABORT_IF = Verdict.abort("abortIf");
  private static final Verdict RETRY_IF = Verdict.retry("retryIf");

  private final List<Class<? extends Throwable>> retryOn;
  private final List<Class<? extends Throwable>> abortOn;
  private final List<Predicate<? super Throwable>> retryOnFailure;
  private final List<Predicate<? super Throwable>> abortOnFailure;
  private final List<Predicate<? super R>> retryIf;
  private final List<Predicate<? super R>> abortIf;
  private final boolean failureConditions;

  /**
   * Creates the classifier of the given rules, copied.
   *
   * @param retryOn the failure types retried; empty: every failure but an interruption
   * @param abortOn the failure types never retried
   * @param retryOnFailure the failures retried, by predicate
   * @param abortOnFailure the failures never retried, by predicate
   * @param retryIf the results retried
   * @param abortIf the results returned as they are
   */
  public RuleClassifier(
      List<Class<? extends Throwable>> retryOn,
      List<Class<? extends Throwable>> abortOn,
      List<Predicate<? super Throwable>> retryOnFailure,
      List<Predicate<? super Throwable>> abortOnFailure,
      List<Predicate<? super R>> retryIf,
      List<Predicate<? super R>> abortIf) {
    this.retryOn = List.copyOf(retryOn);
    this.abortOn = List.copyOf(abortOn);
    this.retryOnFailure = List.copyOf(retryOnFailure);
    this.abortOnFailure = List.copyOf(abortOnFailure);
    this.retryIf = List.copyOf(retryIf);
    this.abortIf = List.copyOf(abortIf);
    this.failureConditions = !retryOn.isEmpty() || !retryOnFailure.isEmpty();
  }

  /**
   * Returns whether any rule was given; a classifier set with {@code withClassifier} excludes them.
   *
   * @return true if any list of rules is not empty
   */
  public boolean hasRules() {
    return failureConditions
        || !abortOn.isEmpty()
        || !abortOnFailure.isEmpty()
        || !retryIf.isEmpty()
        || !abortIf.isEmpty();
  }

  @Override
  public Verdict classify(R result, Throwable failure) {
    return failure != null ? classifyFailure(failure) : classifyResult(result);
  }

  private Verdict classifyFailure(Throwable failure) {
    if (failure instanceof InterruptedException || failure instanceof CancellationException) {
      return INTERRUPTED;
    }
    if (isAny(abortOn, failure) || matches(abortOnFailure, failure)) {
      return ABORT_ON;
    }
    if (!failureConditions) {
      return ANY_FAILURE;
    }
    if (isAny(retryOn, failure) || matches(retryOnFailure, failure)) {
      return RETRY_ON;
    }
    return NOT_RETRY_ON;
  }

  private Verdict classifyResult(R result) {
    if (matches(abortIf, result)) {
      return ABORT_IF;
    }
    if (matches(retryIf, result)) {
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
