/** Relent's test kit: fake time, a recording sleeper, a manual scheduler and assertions. */
module dev.relent.testing {
  requires transitive dev.relent.core;

  exports dev.relent.testing;
}
