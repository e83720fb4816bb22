// Package corpus holds what the classifier's tests and the interpreter's
// tests share: the adversarial shell corpus (testdata/shell-corpus) and the
// world it runs in. Both packages check the same scripts — the classifier
// statically, the interpreter by running them gated — so the corpus and its
// fixture live once, here, rather than in either package's tests.
package corpus
