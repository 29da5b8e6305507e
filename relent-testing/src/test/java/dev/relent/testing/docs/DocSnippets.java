package dev.relent.testing.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Checks that a page shows exactly the Java code that tests compile and run.
 *
 * <p>In a test's source a snippet is the lines between {@code // --- begin NAME} and {@code // ---
 * end}, without their common indent and without the lines that end in {@code // test only} (they
 * give fake time to code that the page shows on the system time). A snippet begun with {@code //
 * --- begin NAME (with imports)} is shown after the imports of the test that it uses, static ones
 * first, as a formatted file has them. Every {@code ```java} block of the page must be one of the
 * snippets, and every snippet must be on the page.
 */
public final class DocSnippets {
  private static final Pattern JAVA_BLOCK = Pattern.compile("(?ms)^```java\n(.*?)^```$");
  private static final Pattern IMPORT = Pattern.compile("(?m)^import (static )?([\\w.]+);$");
  private static final String BEGIN = "// --- begin ";
  private static final String WITH_IMPORTS = "(with imports)";
  private static final String TEST_ONLY = "// test only";

  private DocSnippets() {}

  /**
   * Fails unless the page's Java blocks are the tests' snippets, in any order.
   *
   * @param page the page, relative to the module directory (where Surefire runs)
   * @param tests the test classes holding the snippets, under {@code src/test/java}
   */
  public static void assertPageShowsSnippetsOf(String page, Class<?>... tests) {
    assertPageShows(page, false, tests);
  }

  /**
   * Fails unless the page's Java blocks are the tests' snippets in their order: the tests' in the
   * order given, each one's in the order of its source.
   *
   * @param page the page, relative to the module directory (where Surefire runs)
   * @param tests the test classes holding the snippets, under {@code src/test/java}
   */
  public static void assertPageShowsSnippetsInOrderOf(String page, Class<?>... tests) {
    assertPageShows(page, true, tests);
  }

  private static void assertPageShows(String page, boolean inOrder, Class<?>... tests) {
    List<String> snippets = new ArrayList<>();
    for (Class<?> test : tests) {
      snippets.addAll(
          snippets(read("src/test/java/" + test.getName().replace('.', '/') + ".java")));
    }
    List<String> blocks = new ArrayList<>();
    Matcher m = JAVA_BLOCK.matcher(read(page));
    while (m.find()) {
      blocks.add(m.group(1));
    }
    assertThat(snippets).as("snippets in the tests of " + page).isNotEmpty();
    if (inOrder) {
      assertThat(blocks).as("the Java blocks of " + page).containsExactlyElementsOf(snippets);
    } else {
      assertThat(blocks)
          .as("the Java blocks of " + page)
          .containsExactlyInAnyOrderElementsOf(snippets);
    }
  }

  /** The snippets of one test's source, each ending in a line break. */
  static List<String> snippets(String source) {
    List<String> snippets = new ArrayList<>();
    int from = 0;
    while ((from = source.indexOf(BEGIN, from)) >= 0) {
      int lineEnd = source.indexOf('\n', from);
      boolean withImports = source.substring(from, lineEnd).stripTrailing().endsWith(WITH_IMPORTS);
      int end = source.indexOf("// --- end", lineEnd);
      if (end < 0) {
        throw new IllegalArgumentException(
            "a snippet has no end: " + source.substring(from, lineEnd));
      }
      String code = dedent(source.substring(lineEnd + 1, end).stripTrailing());
      snippets.add(withImports ? imports(source, code) + "\n" + code : code);
      from = end;
    }
    return snippets;
  }

  private static String dedent(String block) {
    List<String> lines =
        block
            .lines()
            .filter(l -> !l.stripTrailing().endsWith(TEST_ONLY))
            .collect(Collectors.toList());
    int indent =
        lines.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    return lines.stream()
            .map(l -> l.isBlank() ? "" : l.substring(indent))
            .collect(Collectors.joining("\n"))
        + "\n";
  }

  /** The source's imports whose simple name the code uses, as a formatted file groups them. */
  private static String imports(String source, String code) {
    StringBuilder statics = new StringBuilder();
    StringBuilder others = new StringBuilder();
    Matcher m = IMPORT.matcher(source);
    while (m.find()) {
      String name = m.group(2);
      String simple = name.substring(name.lastIndexOf('.') + 1);
      if (Pattern.compile("\\b" + Pattern.quote(simple) + "\\b").matcher(code).find()) {
        (m.group(1) != null ? statics : others).append(m.group()).append('\n');
      }
    }
    return statics.length() > 0 && others.length() > 0
        ? statics + "\n" + others
        : statics.toString() + others;
  }

  private static String read(String path) {
    try {
      return Files.readString(Path.of(path), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
  }
}
