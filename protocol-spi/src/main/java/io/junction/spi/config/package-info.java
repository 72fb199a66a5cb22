/**
 * Configuration keys and typed values, shared by the broker (which declares, reads and validates every key) and the
 * front-ends (which declare their own keys and read them through a {@link io.junction.spi.config.FrontEndConfig}).
 *
 * <p>A key is declared once with its {@link io.junction.spi.config.ValueKind}, default and meaning; that declaration is
 * the documentation (the README table mirrors it) and the validation. Values are kept as validated text and parsed by
 * the same {@link io.junction.spi.config.ValueKind} on read, so a value that passed start-up validation cannot fail
 * later.
 */
package io.junction.spi.config;
