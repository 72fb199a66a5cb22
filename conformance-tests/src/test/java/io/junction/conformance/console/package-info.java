/** The web console: its JSON API with real clients' traffic, and its pages in a real browser (headless Chromium). */
package io.junction.conformance.console;
