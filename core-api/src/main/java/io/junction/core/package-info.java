/** The message core as front-ends see it: the {@link io.junction.core.Messaging} facade and its request and result types. */
package io.junction.core;
