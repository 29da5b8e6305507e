package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.http.StructuredFields.ByteSequence;
import dev.relent.http.StructuredFields.Item;
import dev.relent.http.StructuredFields.MalformedFieldException;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StructuredFieldsTest {

  @Test
  void aMalformedFieldSaysWhatAndWhereButNotTheValue() {
    assertThatThrownBy(() -> StructuredFields.parseList("\"secret-token\";r=0, ,"))
        .isInstanceOf(MalformedFieldException.class)
        .hasMessage("malformed structured field: expected an item, not ',' at index 20")
        .hasNoCause()
        .satisfies(e -> assertThat(e.getStackTrace()).isEmpty())
        .satisfies(e -> assertThat(((MalformedFieldException) e).position()).isEqualTo(20));
    assertThatThrownBy(() -> StructuredFields.parseItem("\"secret"))
        .hasMessage("malformed structured field: expected '\"' closing the string at index 0");
    assertThatThrownBy(() -> StructuredFields.parseDictionary("a=1;B=2"))
        .hasMessage(
            "malformed structured field: expected a key starting with a lowercase letter or '*'"
                + " at index 4");
    assertThatThrownBy(() -> StructuredFields.parseItem("caf\u00e9"))
        .hasMessage(
            "malformed structured field: expected a character that is not ASCII at index 3");
  }

  @Test
  void valuesKeepTheirTypes() {
    Item item = StructuredFields.parseItem("-0;a=1.50;b=?0;c=:AQI=:;d=@-5;e=%\"f%c3%bc\";f=tok/en");
    assertThat(item.value()).isEqualTo(0L);
    Map<String, Object> p = item.parameters();
    assertThat(p.get("a")).isEqualTo(new BigDecimal("1.50"));
    assertThat(p.get("b")).isEqualTo(false);
    assertThat(p.get("c")).isEqualTo(new ByteSequence(new byte[] {1, 2}));
    assertThat(((ByteSequence) p.get("c")).base64()).isEqualTo("AQI=");
    assertThat(p.get("d")).isEqualTo(new StructuredFields.Date(-5));
    assertThat(p.get("e")).isEqualTo(new StructuredFields.DisplayString("f\u00fc"));
    assertThat(p.get("f")).isEqualTo(new StructuredFields.Token("tok/en"));
    assertThatThrownBy(() -> item.parameters().put("x", 1L))
        .isInstanceOf(UnsupportedOperationException.class);
    byte[] bytes = ((ByteSequence) p.get("c")).bytes();
    bytes[0] = 9;
    assertThat(((ByteSequence) p.get("c")).bytes()).containsExactly(1, 2);
  }

  @Test
  void fieldLinesAreJoinedAsARecipientJoinsThem() {
    assertThat(StructuredFields.join(List.of("\"a\";r=1", "\"b\";r=0")))
        .isEqualTo("\"a\";r=1, \"b\";r=0");
    // An empty line between two is an empty member: the field is malformed.
    assertThatThrownBy(
            () -> StructuredFields.parseList(StructuredFields.join(List.of("1", "", "2"))))
        .isInstanceOf(MalformedFieldException.class);
  }

  @Test
  void noInputMakesTheParserThrowAnythingElse() throws IOException, URISyntaxException {
    // Seeded mutations of every corpus value: cut, doubled, a character changed or inserted.
    List<String> seeds = new ArrayList<>();
    for (List<Map<String, Object>> vectors : CorpusJson.corpus().values()) {
      for (Map<String, Object> v : vectors) {
        @SuppressWarnings("unchecked")
        List<String> raw = (List<String>) v.get("raw");
        seeds.add(StructuredFields.join(raw));
      }
    }
    SplittableRandom random = new SplittableRandom(20260101L);
    String alphabet = " \t\"\\:;=,()?@%*-.0123456789abcxyzAZ_/\u00e9\u0000";
    int rejected = 0;
    for (int i = 0; i < 50_000; i++) {
      StringBuilder s = new StringBuilder(seeds.get(random.nextInt(seeds.size())));
      int edits = 1 + random.nextInt(3);
      for (int e = 0; e < edits; e++) {
        int at = s.length() == 0 ? 0 : random.nextInt(s.length() + 1);
        char c = alphabet.charAt(random.nextInt(alphabet.length()));
        switch (random.nextInt(4)) {
          case 0:
            s.setLength(at);
            break;
          case 1:
            s.insert(at, c);
            break;
          case 2:
            if (at < s.length()) {
              s.setCharAt(at, c);
            }
            break;
          default:
            s.append(s, 0, Math.min(s.length(), 64));
        }
      }
      String input = s.toString();
      for (int type = 0; type < 3; type++) {
        try {
          if (type == 0) {
            StructuredFields.parseList(input);
          } else if (type == 1) {
            StructuredFields.parseDictionary(input);
          } else {
            StructuredFields.parseItem(input);
          }
        } catch (MalformedFieldException expected) {
          rejected++;
        }
      }
    }
    // Most mutations break the grammar; every one was either parsed or rejected as malformed.
    assertThat(rejected).isGreaterThan(50_000);
  }
}
