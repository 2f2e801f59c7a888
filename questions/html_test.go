package questions

import "testing"

func TestHTMLToMarkdown(t *testing.T) {
	tests := []struct {
		name, in string
		moodle   bool
		want     string
	}{
		{"paragraphs", "<p>One.</p><p>Two.</p>", false, "One.\n\nTwo."},
		{"inline", "<b>bold</b>, <strong>strong</strong>, <i>it</i>, <em>em</em>, <u>u</u>, <s>s</s>, <code>x := 1</code>", false, "**bold**, **strong**, *it*, *em*, __u__, ~~s~~, `x := 1`"},
		{"line breaks and white space", "a<br>b<br/>c<BR />  d\n  e", false, "a\nb\nc\nd e"},
		{"entities", "&lt;div&gt; &amp;&amp; &quot;q&quot; &#39;s&#39; caf&eacute; a&nbsp;b &#x2014;", false, "<div> && \"q\" 's' café a b —"},
		{"pre keeps indentation", "<p>Run:</p><pre><code class=\"py\">if x:\n    y()\n\n        z()</code></pre><p>after</p>", false, "Run:\n\n```\nif x:\n    y()\n\n        z()\n```\n\nafter"},
		{"lists", "<ul><li>one</li><li>two<ol><li>a</li><li>b</li></ol></li></ul>", false, "- one\n- two\n  1. a\n  2. b"},
		{"other tags dropped", "<span style=\"x\">a</span> <a href=\"https://x\">link</a> <img src=x> <script>alert(1)</script><style>p{}</style>b", false, "a link b"},
		{"not a tag", "a < b and c<d", false, "a < b and c<d"},
		{"comment", "a<!-- hidden -->b", false, "ab"},
		{"moodle line breaks", "one\ntwo <b>x</b>", true, "one\ntwo **x**"},
		{"heading", "<h3>Title</h3>text", false, "**Title**\n\ntext"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := htmlToMarkdown(tt.in, tt.moodle); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
