package dev.relent.mockserver;

import io.netty.util.AsciiString;
import java.util.List;
import java.util.Map;

/** A {@link Step} turned into what the response writer needs; built once per scenario load. */
final class CompiledStep {

  final int index;
  final int status;
  final boolean statusSet;
  final AsciiString[] names;
  final Template[] values;
  final boolean hasContentType;
  final boolean hasDate;
  final boolean hasBody;
  final byte[] body;
  final String contentType;
  final InjectedFault fault;
  final int cut;
  final long delayNanos;
  final long stallNanos;
  final boolean creates;

  CompiledStep(int index, Step step) {
    this.index = index;
    this.status = step.status();
    this.statusSet = step.statusSet();
    List<Map.Entry<String, Template>> headers = step.headerTemplates();
    this.names = new AsciiString[headers.size()];
    this.values = new Template[headers.size()];
    boolean ct = false;
    boolean date = false;
    for (int i = 0; i < headers.size(); i++) {
      names[i] = AsciiString.cached(headers.get(i).getKey());
      values[i] = headers.get(i).getValue();
      ct |= names[i].contentEqualsIgnoreCase("content-type");
      date |= names[i].contentEqualsIgnoreCase("date");
    }
    this.hasContentType = ct;
    this.hasDate = date;
    this.hasBody = step.body() != null;
    this.body = step.bodyBytes();
    this.contentType =
        step.jsonBody()
            ? "application/json"
            : (body.length > 0 ? "text/plain; charset=utf-8" : null);
    this.fault = step.fault();
    int bytes = step.faultBytes();
    this.cut = bytes >= 0 ? bytes : body.length / 2;
    this.delayNanos = step.delay().toNanos();
    this.stallNanos = step.stallFor() == null ? -1 : step.stallFor().toNanos();
    this.creates = step.creates();
  }
}
