package dev.relent.http;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A parser of Structured Field Values for HTTP (RFC 9651): Lists, Dictionaries and Items, with
 * every bare item type (Integer, Decimal, String, Token, Byte Sequence, Boolean, Date, Display
 * String) and Parameters.
 *
 * <p>Design: one recursive-descent pass over the field value, following the parsing algorithms of
 * RFC 9651 §4.2 step by step (each method names the section it follows). Any departure from the
 * grammar fails the whole field with a {@link MalformedFieldException} naming what was expected and
 * where: a recipient ignores a malformed field entirely, as if it were absent (§4.2), so there is
 * no partial result. Two SHOULDs of §4.2.7 are followed: a Byte Sequence without its {@code =}
 * padding, or with non-zero pad bits, is accepted.
 *
 * <p>A field sent as several field lines is parsed after joining the lines with {@code ", "}
 * ({@link #join}), as RFC 9110 §5.3 combines them. The input must be ASCII; a character above 0x7F
 * fails the field, as the RFC's conversion of the field's bytes to ASCII does.
 *
 * <p>Results are immutable: maps keep the order in which keys first appeared (a repeated key keeps
 * its first position and takes its last value, as §4.2.2 says). Bare items are {@link Long}
 * (Integer), {@link BigDecimal} (Decimal), {@link String}, {@link Token}, {@link ByteSequence},
 * {@link Boolean}, {@link Date} and {@link DisplayString}. Each parse runs on a cursor of its own,
 * so the static methods are thread-safe; they take time and memory linear in the input's length.
 */
final class StructuredFields {
  private final String input;
  private int pos;

  private StructuredFields(String input) {
    this.input = input;
  }

  /**
   * Parses a List field.
   *
   * @param value the field value (several lines joined by {@link #join})
   * @return its members, each an {@link Item} or an {@link InnerList}; empty for an empty value
   * @throws MalformedFieldException if the value is not a List
   * @throws NullPointerException if {@code value} is null
   */
  static List<Member> parseList(String value) {
    StructuredFields p = start(value);
    List<Member> members = p.list();
    p.end();
    return members;
  }

  /**
   * Parses a Dictionary field.
   *
   * @param value the field value (several lines joined by {@link #join})
   * @return its members by key, in order
   * @throws MalformedFieldException if the value is not a Dictionary
   * @throws NullPointerException if {@code value} is null
   */
  static Map<String, Member> parseDictionary(String value) {
    StructuredFields p = start(value);
    Map<String, Member> members = p.dictionary();
    p.end();
    return members;
  }

  /**
   * Parses an Item field.
   *
   * @param value the field value
   * @return the item
   * @throws MalformedFieldException if the value is not an Item
   * @throws NullPointerException if {@code value} is null
   */
  static Item parseItem(String value) {
    StructuredFields p = start(value);
    Item item = p.item();
    p.end();
    return item;
  }

  /**
   * Joins the lines of a field sent as several field lines, as a recipient combines them.
   *
   * @param lines the field lines, in order
   * @return the combined value
   */
  static String join(List<String> lines) {
    return String.join(", ", lines);
  }

  private static StructuredFields start(String value) {
    Objects.requireNonNull(value, "value cannot be null");
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) > 0x7f) {
        throw new MalformedFieldException("a character that is not ASCII", i);
      }
    }
    StructuredFields p = new StructuredFields(value);
    p.skipSp();
    return p;
  }

  private void end() {
    skipSp();
    if (pos < input.length()) {
      throw fail("'" + input.charAt(pos) + "' after the end of the value");
    }
  }

  // RFC 9651 §4.2.1
  private List<Member> list() {
    List<Member> members = new ArrayList<>();
    while (pos < input.length()) {
      members.add(itemOrInnerList());
      if (!anotherMember("',' between list members")) {
        break;
      }
    }
    return Collections.unmodifiableList(members);
  }

  /**
   * After a member of a list or a dictionary: the end of the field (false), or a ',' and another
   * member to come (true), with optional white space around the comma.
   */
  private boolean anotherMember(String between) {
    skipOws();
    if (pos >= input.length()) {
      return false;
    }
    expect(',', between);
    skipOws();
    if (pos >= input.length()) {
      throw fail("a member after the trailing ','");
    }
    return true;
  }

  private Member itemOrInnerList() {
    return peek() == '(' ? innerList() : item();
  }

  // RFC 9651 §4.2.1.2
  private InnerList innerList() {
    expect('(', "'(' opening an inner list");
    List<Item> items = new ArrayList<>();
    while (pos < input.length()) {
      skipSp();
      if (peek() == ')') {
        pos++;
        return new InnerList(Collections.unmodifiableList(items), parameters());
      }
      items.add(item());
      char c = peek();
      if (c != ' ' && c != ')') {
        throw fail("' ' or ')' after an inner list's item");
      }
    }
    throw fail("')' closing the inner list");
  }

  // RFC 9651 §4.2.2
  private Map<String, Member> dictionary() {
    Map<String, Member> members = new LinkedHashMap<>();
    while (pos < input.length()) {
      String key = key();
      Member member;
      if (peek() == '=') {
        pos++;
        member = itemOrInnerList();
      } else {
        member = new Item(Boolean.TRUE, parameters());
      }
      members.put(key, member);
      if (!anotherMember("',' between dictionary members")) {
        break;
      }
    }
    return Collections.unmodifiableMap(members);
  }

  // RFC 9651 §4.2.3
  private Item item() {
    Object bare = bareItem();
    return new Item(bare, parameters());
  }

  // RFC 9651 §4.2.3.1
  private Object bareItem() {
    char c = peek();
    if (c == '-' || isDigit(c)) {
      return integerOrDecimal();
    }
    if (c == '"') {
      return string();
    }
    if (c == '*' || isAlpha(c)) {
      return token();
    }
    if (c == ':') {
      return byteSequence();
    }
    if (c == '?') {
      return bool();
    }
    if (c == '@') {
      return date();
    }
    if (c == '%') {
      return displayString();
    }
    throw fail(pos < input.length() ? "an item, not '" + c + "'" : "an item");
  }

  // RFC 9651 §4.2.3.2
  private Map<String, Object> parameters() {
    Map<String, Object> parameters = null;
    while (peek() == ';') {
      pos++;
      skipSp();
      String key = key();
      Object value = Boolean.TRUE;
      if (peek() == '=') {
        pos++;
        value = bareItem();
      }
      if (parameters == null) {
        parameters = new LinkedHashMap<>();
      }
      parameters.put(key, value);
    }
    return parameters == null ? Map.of() : Collections.unmodifiableMap(parameters);
  }

  // RFC 9651 §4.2.3.3
  private String key() {
    char first = peek();
    if (!isLcAlpha(first) && first != '*') {
      throw fail("a key starting with a lowercase letter or '*'");
    }
    int start = pos;
    while (pos < input.length()) {
      char c = input.charAt(pos);
      if (!isLcAlpha(c) && !isDigit(c) && c != '_' && c != '-' && c != '.' && c != '*') {
        break;
      }
      pos++;
    }
    return input.substring(start, pos);
  }

  // RFC 9651 §4.2.4
  private Object integerOrDecimal() {
    int start = pos;
    boolean negative = false;
    if (peek() == '-') {
      negative = true;
      pos++;
    }
    if (!isDigit(peek())) {
      throw fail("a digit");
    }
    int digitsStart = pos;
    int dot = -1;
    while (pos < input.length()) {
      char c = input.charAt(pos);
      if (isDigit(c)) {
        pos++;
      } else if (dot < 0 && c == '.') {
        if (pos - digitsStart > 12) {
          throw fail("at most 12 digits before a decimal's '.'");
        }
        dot = pos++;
      } else {
        break;
      }
      int length = pos - digitsStart;
      if (dot < 0 && length > 15) {
        throw new MalformedFieldException("an integer of at most 15 digits", start);
      }
      if (dot >= 0 && length > 16) {
        throw new MalformedFieldException("a decimal of at most 16 characters", start);
      }
    }
    if (dot < 0) {
      long n = Long.parseLong(input, digitsStart, pos, 10);
      return negative ? -n : n;
    }
    if (dot == pos - 1) {
      throw fail("a digit after a decimal's '.'");
    }
    if (pos - dot - 1 > 3) {
      throw new MalformedFieldException("at most 3 digits after a decimal's '.'", dot);
    }
    BigDecimal d = new BigDecimal(input.substring(digitsStart, pos));
    return negative ? d.negate() : d;
  }

  // RFC 9651 §4.2.5
  private String string() {
    int start = pos;
    pos++; // the opening quote
    StringBuilder out = new StringBuilder();
    while (pos < input.length()) {
      char c = input.charAt(pos++);
      if (c == '\\') {
        if (pos >= input.length()) {
          break;
        }
        char next = input.charAt(pos++);
        if (next != '"' && next != '\\') {
          throw new MalformedFieldException("only \\\" or \\\\ escaped in a string", pos - 2);
        }
        out.append(next);
      } else if (c == '"') {
        return out.toString();
      } else if (c < 0x20 || c == 0x7f) {
        throw new MalformedFieldException("a visible character in a string", pos - 1);
      } else {
        out.append(c);
      }
    }
    throw new MalformedFieldException("'\"' closing the string", start);
  }

  // RFC 9651 §4.2.6
  private Token token() {
    int start = pos;
    while (pos < input.length()) {
      char c = input.charAt(pos);
      if (!isTchar(c) && c != ':' && c != '/') {
        break;
      }
      pos++;
    }
    return new Token(input.substring(start, pos));
  }

  // RFC 9651 §4.2.7
  private ByteSequence byteSequence() {
    int start = pos;
    int close = input.indexOf(':', pos + 1);
    if (close < 0) {
      throw fail("':' closing the byte sequence");
    }
    for (int i = pos + 1; i < close; i++) {
      char c = input.charAt(i);
      if (!isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=') {
        throw new MalformedFieldException("base64 in a byte sequence", i);
      }
    }
    pos = close + 1;
    try {
      // java.util.Base64 accepts missing padding and ignores non-zero pad bits.
      return new ByteSequence(Base64.getDecoder().decode(input.substring(start + 1, close)));
    } catch (IllegalArgumentException e) {
      throw new MalformedFieldException("base64 in a byte sequence", start);
    }
  }

  // RFC 9651 §4.2.8
  private Boolean bool() {
    pos++; // '?'
    char c = peek();
    if (c == '1' || c == '0') {
      pos++;
      return c == '1';
    }
    throw fail("'0' or '1' after '?'");
  }

  // RFC 9651 §4.2.9
  private Date date() {
    pos++; // '@'
    int start = pos;
    Object n = integerOrDecimal();
    if (!(n instanceof Long)) {
      throw new MalformedFieldException("an integer after '@'", start);
    }
    return new Date((Long) n);
  }

  // RFC 9651 §4.2.10
  private DisplayString displayString() {
    int start = pos;
    pos++; // '%'
    expect('"', "'\"' after '%'");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    while (pos < input.length()) {
      char c = input.charAt(pos++);
      if (c < 0x20 || c == 0x7f) {
        throw new MalformedFieldException("a visible character in a display string", pos - 1);
      }
      if (c == '%') {
        int hi = pos + 1 < input.length() ? lowerHex(input.charAt(pos)) : -1;
        int lo = hi >= 0 ? lowerHex(input.charAt(pos + 1)) : -1;
        if (lo < 0) {
          throw new MalformedFieldException("two lowercase hex digits after '%'", pos - 1);
        }
        bytes.write(hi << 4 | lo);
        pos += 2;
      } else if (c == '"') {
        try {
          return new DisplayString(
              StandardCharsets.UTF_8
                  .newDecoder()
                  .onMalformedInput(CodingErrorAction.REPORT)
                  .onUnmappableCharacter(CodingErrorAction.REPORT)
                  .decode(ByteBuffer.wrap(bytes.toByteArray()))
                  .toString());
        } catch (CharacterCodingException e) {
          throw new MalformedFieldException("UTF-8 in a display string", start);
        }
      } else {
        bytes.write(c);
      }
    }
    throw new MalformedFieldException("'\"' closing the display string", start);
  }

  private char peek() {
    return pos < input.length() ? input.charAt(pos) : '\0';
  }

  private void expect(char c, String what) {
    if (peek() != c) {
      throw fail(what);
    }
    pos++;
  }

  private void skipSp() {
    while (pos < input.length() && input.charAt(pos) == ' ') {
      pos++;
    }
  }

  private void skipOws() {
    while (pos < input.length() && (input.charAt(pos) == ' ' || input.charAt(pos) == '\t')) {
      pos++;
    }
  }

  private MalformedFieldException fail(String expected) {
    return new MalformedFieldException(expected, pos);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isLcAlpha(char c) {
    return c >= 'a' && c <= 'z';
  }

  private static boolean isAlpha(char c) {
    return isLcAlpha(c) || (c >= 'A' && c <= 'Z');
  }

  private static int lowerHex(char c) {
    if (isDigit(c)) {
      return c - '0';
    }
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  }

  /** RFC 9110 tchar. */
  private static boolean isTchar(char c) {
    return isAlpha(c) || isDigit(c) || (c < 0x80 && "!#$%&'*+-.^_`|~".indexOf(c) >= 0);
  }

  /** A member of a List or Dictionary: an {@link Item} or an {@link InnerList}. */
  sealed interface Member permits Item, InnerList {
    /**
     * Returns the member's parameters.
     *
     * @return key to bare item, in order; empty when none
     */
    Map<String, Object> parameters();
  }

  /**
   * An Item: a bare item with parameters.
   *
   * @param value the bare item
   * @param parameters key to bare item, in order
   */
  record Item(Object value, Map<String, Object> parameters) implements Member {}

  /**
   * An Inner List: items with parameters of its own.
   *
   * @param items the items
   * @param parameters key to bare item, in order
   */
  record InnerList(List<Item> items, Map<String, Object> parameters) implements Member {}

  /**
   * A Token, such as {@code text/html}: unquoted, distinct from a String.
   *
   * @param value the token's characters
   */
  record Token(String value) {}

  /**
   * A Display String: Unicode text sent as percent-encoded UTF-8.
   *
   * @param value the decoded text
   */
  record DisplayString(String value) {}

  /**
   * A Date: an integer number of seconds from the Unix epoch.
   *
   * @param epochSeconds seconds from 1970-01-01T00:00:00Z, possibly negative
   */
  record Date(long epochSeconds) {}

  /** A Byte Sequence: binary content sent as base64 between colons. Immutable. */
  static final class ByteSequence {
    private final byte[] bytes;

    ByteSequence(byte[] bytes) {
      this.bytes = bytes.clone();
    }

    /** Returns a copy of the bytes. */
    byte[] bytes() {
      return bytes.clone();
    }

    /** Returns the bytes in padded base64, as the field's canonical form carries them. */
    String base64() {
      return Base64.getEncoder().encodeToString(bytes);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ByteSequence && Arrays.equals(bytes, ((ByteSequence) o).bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return ":" + base64() + ":";
    }
  }

  /**
   * The field value is not what RFC 9651 allows: the field must be ignored as a whole. Carries no
   * stack trace (it is a verdict on input, not a bug) and never the field value itself, which may
   * hold anything the server sent.
   */
  static final class MalformedFieldException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final int position;

    MalformedFieldException(String expected, int position) {
      super("malformed structured field: expected " + expected + " at index " + position);
      this.position = position;
    }

    /** Returns the index in the field value where parsing failed. */
    int position() {
      return position;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
