package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/tandemdev/tandem/refusal"
)

// page is a fetched body as the model reads it.
type page struct {
	text, title string
	mediaType   string
	note        string // how the text was made, after the size
}

// pageText turns a body of the given Content-Type (sniffed when absent)
// into text: HTML into markdown, text and JSON (indented) as they are.
// Any other type is refused: its bytes mean nothing to a model as text.
func pageText(ctx context.Context, body []byte, contentType string, at *url.URL, full bool) (page, error) {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		contentType = http.DetectContentType(body)
		mediaType, _, _ = mime.ParseMediaType(contentType)
	}
	p := page{mediaType: mediaType}
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return htmlPage(ctx, body, contentType, at, full, p)
	case !textual(mediaType):
		return p, refusal.New(refusal.Encoding, fmt.Sprintf(
			"%s is %s, which fetch does not show: it shows HTML as markdown, and text and JSON as they are. If the user needs the file itself, download it with bash (curl -o FILE URL) and look at it there.", at, mediaType))
	case bytes.IndexByte(body, 0) >= 0:
		return p, refusal.New(refusal.Encoding, fmt.Sprintf(
			"%s is sent as %s but holds a NUL byte at offset %d: it is binary, which fetch does not show. If the user needs the file itself, download it with bash (curl -o FILE URL).", at, mediaType, bytes.IndexByte(body, 0)))
	}
	text, err := decoded(body, contentType)
	if err != nil {
		return p, err
	}
	if strings.HasSuffix(mediaType, "json") {
		var b bytes.Buffer
		if json.Indent(&b, []byte(text), "", "  ") == nil {
			text, p.note = b.String(), ", indented"
		}
	}
	p.text = text
	return p, nil
}

// textual reports whether a media type is text a model reads as it is.
func textual(mediaType string) bool {
	switch {
	case strings.HasPrefix(mediaType, "text/"),
		strings.HasSuffix(mediaType, "+json"), strings.HasSuffix(mediaType, "+xml"):
		return true
	}
	switch mediaType {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/x-sh", "application/toml", "application/yaml", "application/x-yaml",
		"application/ld+json", "application/x-ndjson", "application/sql", "application/graphql":
		return true
	}
	return false
}

// decoded is body as UTF-8, from the charset its Content-Type (or, for
// HTML, its meta element) names; bytes that are not text in it become
// U+FFFD.
func decoded(body []byte, contentType string) (string, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", refusal.New(refusal.Encoding, fmt.Sprintf("The page's text could not be decoded (%v). Fetch another page.", err))
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}

// htmlPage converts an HTML page into markdown: its main content as a
// reader view finds it (go-readability, a port of Firefox's Readability),
// or the whole page when full is set, the page is small or huge, or no
// main content stands out. What
// the main content leaves out is said, with the call that shows it.
func htmlPage(ctx context.Context, body []byte, contentType string, at *url.URL, full bool, p page) (page, error) {
	text, err := decoded(body, contentType)
	if err != nil {
		return p, err
	}
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return p, refusal.New(refusal.Encoding, fmt.Sprintf("%s could not be parsed as HTML (%v). Fetch another page.", at, err))
	}
	whole := textSize(doc)
	p.title = words(titleOf(doc))
	node := doc
	p.note = ", as markdown"
	if !full && whole >= mainContentMinSize {
		if elements(doc) > mainContentMaxElems {
			p.note = fmt.Sprintf(", as markdown: the whole page, which has too many elements (over %d) to look for its main content", mainContentMaxElems)
		} else if art, err := readability.FromDocument(doc, at); err == nil && art.Node != nil && textSize(art.Node) > 0 {
			node = art.Node
			if t := words(art.Title()); t != "" {
				p.title = t
			}
			p.note = ", as markdown: its main content"
			if share := textSize(art.Node) * 100 / max(whole, 1); share < 90 {
				p.note += fmt.Sprintf(", %d%% of the page's text; {\"url\":%q,\"full\":true} shows the whole page", share, at.String())
			}
		}
	}
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	md, err := conv.ConvertNode(node, converter.WithDomain(at.String()), converter.WithContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return p, fetchCancelled(at)
		}
		return p, refusal.New(refusal.Failed, fmt.Sprintf("%s could not be converted to markdown (%v). Call fetch again with \"full\": true, or fetch another page.", at, err))
	}
	p.text = string(md)
	return p, nil
}

// mainContentMinSize is the least text (letters and digits) of a page
// whose main content is looked for: a smaller page costs little whole, and
// the search can take its one heading for clutter.
const mainContentMinSize = 2000

// mainContentMaxElems bounds the pages whose main content is looked for:
// the search's cost grows faster than the page (a 2 MiB page of nested
// inline elements takes half a minute), and real pages have a few
// thousand elements (Readability's corpus at most 9,887).
const mainContentMaxElems = 50_000

// elements counts a tree's elements.
func elements(n *html.Node) int {
	count := 0
	if n.Type == html.ElementNode {
		count = 1
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		count += elements(c)
	}
	return count
}

// textSize counts the letters and digits of a tree's text outside
// scripts and styles, and drops the data: URLs of its attributes (inline
// images), which would fill a page's markdown with base64.
func textSize(n *html.Node) int {
	count := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "template"):
			return
		case n.Type == html.TextNode:
			for _, r := range n.Data {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					count++
				}
			}
		}
		for i, a := range n.Attr {
			if strings.HasPrefix(strings.TrimSpace(strings.ToLower(a.Val)), "data:") {
				n.Attr[i].Val = "data:,"
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return count
}

// titleOf returns the text of the document's first title element.
func titleOf(n *html.Node) string {
	if n.Type == html.ElementNode && n.Data == "title" {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return b.String()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := titleOf(c); t != "" {
			return t
		}
	}
	return ""
}

// words joins a text's words with single spaces.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }
