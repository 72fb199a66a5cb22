/**
 * Server-side message filtering: decides which messages a subscription receives.
 *
 * <p>This package owns every filter language the broker accepts and nothing else:
 * <ul>
 *   <li>RocketMQ tag expressions ({@link io.junction.core.filter.TagFilter}), whose first stage runs on the tag hash
 *       kept in each queue entry ({@link io.junction.core.filter.TagFilter#tagHash(String)} is the one place that hash
 *       is defined);</li>
 *   <li>SQL92 property filters as RocketMQ accepts them, plus the JMS selector extras so AMQP/JMS selectors share the
 *       evaluator ({@link io.junction.core.filter.SqlFilter}, hand-written lexer and recursive-descent parser that
 *       compile once into a tree of small condition nodes);</li>
 *   <li>CloudEvents Subscriptions API filter dialects ({@link io.junction.core.filter.AttributeFilters}).</li>
 * </ul>
 * {@link io.junction.core.filter.Filters} is the single entry point. Filters see messages only as their property map;
 * this package knows nothing about storage layout or protocols.
 */
package io.junction.core.filter;
