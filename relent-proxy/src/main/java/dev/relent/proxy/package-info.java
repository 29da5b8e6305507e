/**
 * {@code relent proxy}: a local HTTP proxy that gives callers in any language relent-http's attempt
 * loop. {@link dev.relent.proxy.RelentProxy} is the whole public API; docs/proxy.md describes the
 * modes, headers and limits.
 */
package dev.relent.proxy;
