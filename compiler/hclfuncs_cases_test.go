package compiler

// terraformCases are expressions and what Terraform (terraformVersion) gives
// for each: first the examples of its documentation
// (website/docs/language/functions/*.mdx at that tag), then cases of its
// function tests (internal/lang/funcs/*_test.go) and of the issue.
var terraformCases = []funcCase{
	// alltrue.mdx
	{`alltrue(["true", true])`, `true`, ``},
	{`alltrue([true, false])`, `false`, ``},
	// anytrue.mdx
	{`anytrue(["true"])`, `true`, ``},
	{`anytrue([true])`, `true`, ``},
	{`anytrue([true, false])`, `true`, ``},
	{`anytrue([])`, `false`, ``},
	// base64decode.mdx
	{`base64decode("SGVsbG8gV29ybGQ=")`, `"Hello World"`, ``},
	// base64encode.mdx
	{`base64encode("Hello World")`, `"SGVsbG8gV29ybGQ="`, ``},
	// base64sha256.mdx
	{`base64sha256("hello world")`, `"uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="`, ``},
	// base64sha512.mdx
	{`base64sha512("hello world")`, `"MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw=="`, ``},
	// basename.mdx
	{`basename("foo/bar/baz.txt")`, `"baz.txt"`, ``},
	// can.mdx
	{`local.foo`, `{
  "bar" = "baz"
}`, ``},
	{`can(local.foo.bar)`, `true`, ``},
	{`can(local.foo.boop)`, `false`, ``},
	// ceil.mdx
	{`ceil(5)`, `5`, ``},
	{`ceil(5.1)`, `6`, ``},
	// chomp.mdx
	{`chomp("hello\n")`, `"hello"`, ``},
	{`chomp("hello\r\n")`, `"hello"`, ``},
	{`chomp("hello\n\n")`, `"hello"`, ``},
	// chunklist.mdx
	{`chunklist(["a", "b", "c", "d", "e"], 2)`, `[
  [
    "a",
    "b",
  ],
  [
    "c",
    "d",
  ],
  [
    "e",
  ],
]`, ``},
	{`chunklist(["a", "b", "c", "d", "e"], 1)`, `[
  [
    "a",
  ],
  [
    "b",
  ],
  [
    "c",
  ],
  [
    "d",
  ],
  [
    "e",
  ],
]`, ``},
	// cidrhost.mdx
	{`cidrhost("10.12.112.0/20", 16)`, `"10.12.112.16"`, ``},
	{`cidrhost("10.12.112.0/20", 268)`, `"10.12.113.12"`, ``},
	{`cidrhost("fd00:fd12:3456:7890:00a2::/72", 34)`, `"fd00:fd12:3456:7890::22"`, ``},
	// cidrnetmask.mdx
	{`cidrnetmask("172.16.0.0/12")`, `"255.240.0.0"`, ``},
	// cidrsubnet.mdx
	{`cidrsubnet("172.16.0.0/12", 4, 2)`, `"172.18.0.0/16"`, ``},
	{`cidrsubnet("10.1.2.0/24", 4, 15)`, `"10.1.2.240/28"`, ``},
	{`cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)`, `"fd00:fd12:3456:7800:a200::/72"`, ``},
	{`cidrhost("10.1.2.240/28", 1)`, `"10.1.2.241"`, ``},
	{`cidrhost("10.1.2.240/28", 14)`, `"10.1.2.254"`, ``},
	// cidrsubnets.mdx
	{`cidrsubnets("10.1.0.0/16", 4, 4, 8, 4)`, `[
  "10.1.0.0/20",
  "10.1.16.0/20",
  "10.1.32.0/24",
  "10.1.48.0/20",
]`, ``},
	{`cidrsubnets("fd00:fd12:3456:7890::/56", 16, 16, 16, 32)`, `[
  "fd00:fd12:3456:7800::/72",
  "fd00:fd12:3456:7800:100::/72",
  "fd00:fd12:3456:7800:200::/72",
  "fd00:fd12:3456:7800:300::/88",
]`, ``},
	{`[for cidr_block in cidrsubnets("10.0.0.0/8", 8, 8, 8, 8) : cidrsubnets(cidr_block, 4, 4)]`, `[
  [
    "10.0.0.0/20",
    "10.0.16.0/20",
  ],
  [
    "10.1.0.0/20",
    "10.1.16.0/20",
  ],
  [
    "10.2.0.0/20",
    "10.2.16.0/20",
  ],
  [
    "10.3.0.0/20",
    "10.3.16.0/20",
  ],
]`, ``},
	// coalesce.mdx
	{`coalesce("a", "b")`, `"a"`, ``},
	{`coalesce("", "b")`, `"b"`, ``},
	{`coalesce(1,2)`, `1`, ``},
	{`coalesce(["", "b"]...)`, `"b"`, ``},
	{`coalesce(1, "hello")`, `"1"`, ``},
	{`coalesce(true, "hello")`, `"true"`, ``},
	{`coalesce({}, "hello")`, ``, `Call to function "coalesce" failed: all arguments must have the same type.`},
	// coalescelist.mdx
	{`coalescelist(["a", "b"], ["c", "d"])`, `[
  "a",
  "b",
]`, ``},
	{`coalescelist([], ["c", "d"])`, `[
  "c",
  "d",
]`, ``},
	{`coalescelist([[], ["c", "d"]]...)`, `[
  "c",
  "d",
]`, ``},
	// compact.mdx
	{`compact(["a", "", "b", null, "c"])`, `[
  "a",
  "b",
  "c",
]`, ``},
	// concat.mdx
	{`concat(["a", ""], ["b", "c"])`, `[
  "a",
  "",
  "b",
  "c",
]`, ``},
	// contains.mdx
	{`contains(["a", "b", "c"], "a")`, `true`, ``},
	{`contains(["a", "b", "c"], "d")`, `false`, ``},
	// csvdecode.mdx
	{`csvdecode("a,b,c\n1,2,3\n4,5,6")`, `[
  {
    "a" = "1"
    "b" = "2"
    "c" = "3"
  },
  {
    "a" = "4"
    "b" = "5"
    "c" = "6"
  }
]`, ``},
	// dirname.mdx
	{`dirname("foo/bar/baz.txt")`, `"foo/bar"`, ``},
	// distinct.mdx
	{`distinct(["a", "b", "a", "c", "d", "b"])`, `[
  "a",
  "b",
  "c",
  "d",
]`, ``},
	// element.mdx
	{`element(["a", "b", "c"], 1)`, `"b"`, ``},
	{`element(["a", "b", "c"], 3)`, `"a"`, ``},
	{`element(["a", "b", "c"], -1)`, `"c"`, ``},
	// endswith.mdx
	{`endswith("hello world", "world")`, `true`, ``},
	{`endswith("hello world", "hello")`, `false`, ``},
	// file.mdx
	{`file("hello.txt")`, `"Hello World"`, ``},
	// filebase64.mdx
	{`filebase64("hello.txt")`, `"SGVsbG8gV29ybGQ="`, ``},
	// fileexists.mdx
	{`fileexists("hello.txt")`, `true`, ``},
	// fileset.mdx
	{`fileset(".", "files/*.txt")`, `[
  "files/hello.txt",
  "files/world.txt",
]`, ``},
	{`fileset(".", "files/{hello,world}.txt")`, `[
  "files/hello.txt",
  "files/world.txt",
]`, ``},
	{`fileset("files", "*")`, `[
  "hello.txt",
  "world.txt",
]`, ``},
	{`fileset("files", "**")`, `[
  "hello.txt",
  "world.txt",
  "subdirectory/anotherfile.txt",
]`, ``},
	// flatten.mdx
	{`flatten([["a", "b"], [], ["c"]])`, `["a", "b", "c"]`, ``},
	{`flatten([[["a", "b"], []], ["c"]])`, `["a", "b", "c"]`, ``},
	// floor.mdx
	{`floor(5)`, `5`, ``},
	{`floor(4.9)`, `4`, ``},
	// format.mdx
	{`format("Hello, %s!", "Ander")`, `"Hello, Ander!"`, ``},
	{`format("There are %d lights", 4)`, `"There are 4 lights"`, ``},
	{`format("Hello, %s!", var.name)`, `"Hello, Valentina!"`, ``},
	{`"Hello, ${var.name}!"`, `"Hello, Valentina!"`, ``},
	{`format("%[1]s%[2]s%[1]s%[3]s", "/", "path", "file.tf")`, `"/path/file.tf"`, ``},
	{`format("%#v", "hello")`, `"\"hello\""`, ``},
	{`format("%#v", true)`, `"true"`, ``},
	{`format("%#v", 1)`, `"1"`, ``},
	{`format("%#v", {a = 1})`, `"{\"a\":1}"`, ``},
	{`format("%#v", [true])`, `"[true]"`, ``},
	{`format("%#v", null)`, `"null"`, ``},
	// formatdate.mdx
	{`formatdate("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z")`, `"02 Jan 2018 23:12 UTC"`, ``},
	{`formatdate("EEEE, DD-MMM-YY hh:mm:ss ZZZ", "2018-01-02T23:12:01Z")`, `"Tuesday, 02-Jan-18 23:12:01 UTC"`, ``},
	{`formatdate("EEE, DD MMM YYYY hh:mm:ss ZZZ", "2018-01-02T23:12:01-08:00")`, `"Tue, 02 Jan 2018 23:12:01 -0800"`, ``},
	{`formatdate("MMM DD, YYYY", "2018-01-02T23:12:01Z")`, `"Jan 02, 2018"`, ``},
	{`formatdate("HH:mmaa", "2018-01-02T23:12:01Z")`, `"11:12pm"`, ``},
	{`formatdate("h'h'mm", "2018-01-02T23:12:01-08:00")`, `"23h12"`, ``},
	{`formatdate("H 'o''clock'", "2018-01-02T23:12:01-08:00")`, `"11 o'clock"`, ``},
	// formatlist.mdx
	{`formatlist("Hello, %s!", ["Valentina", "Ander", "Olivia", "Sam"])`, `[
  "Hello, Valentina!",
  "Hello, Ander!",
  "Hello, Olivia!",
  "Hello, Sam!",
]`, ``},
	{`formatlist("%s, %s!", "Salutations", ["Valentina", "Ander", "Olivia", "Sam"])`, `[
  "Salutations, Valentina!",
  "Salutations, Ander!",
  "Salutations, Olivia!",
  "Salutations, Sam!",
]`, ``},
	// index.mdx
	{`max(5, 12, 9)`, `12`, ``},
	// index_function.mdx
	{`index(["a", "b", "c"], "b")`, `1`, ``},
	// issensitive.mdx
	{`issensitive(sensitive("secret"))`, `true`, ``},
	{`issensitive("hello")`, `false`, ``},
	{`issensitive(var.secret)`, `true`, ``},
	// join.mdx
	{`join("-", ["foo", "bar", "baz"])`, `"foo-bar-baz"`, ``},
	{`join(", ", ["foo", "bar", "baz"])`, `"foo, bar, baz"`, ``},
	{`join(", ", ["foo"])`, `"foo"`, ``},
	// jsondecode.mdx
	{`jsondecode("{\"hello\": \"world\"}")`, `{
  "hello" = "world"
}`, ``},
	{`jsondecode("true")`, `true`, ``},
	// jsonencode.mdx
	{`jsonencode({"hello"="world"})`, `"{\"hello\":\"world\"}"`, ``},
	// keys.mdx
	{`keys({a=1, c=2, d=3})`, `[
  "a",
  "c",
  "d",
]`, ``},
	// length.mdx
	{`length([])`, `0`, ``},
	{`length(["a", "b"])`, `2`, ``},
	{`length({"a" = "b"})`, `1`, ``},
	{`length("hello")`, `5`, ``},
	{`length("👾🕹️")`, `2`, ``},
	// log.mdx
	{`log(50, 10)`, `1.6989700043360185`, ``},
	{`log(16, 2)`, `4`, ``},
	{`ceil(log(15, 2))`, `4`, ``},
	{`ceil(log(16, 2))`, `4`, ``},
	{`ceil(log(17, 2))`, `5`, ``},
	// lookup.mdx
	{`lookup({a="ay", b="bee"}, "a", "what?")`, `"ay"`, ``},
	{`lookup({a="ay", b="bee"}, "c", "what?")`, `"what?"`, ``},
	// lower.mdx
	{`lower("HELLO")`, `"hello"`, ``},
	{`lower("АЛЛО!")`, `"алло!"`, ``},
	// matchkeys.mdx
	{`matchkeys(["i-123", "i-abc", "i-def"], ["us-west", "us-east", "us-east"], ["us-east"])`, `[
  "i-abc",
  "i-def",
]`, ``},
	// The page shows "i-def" first; a for expression takes an object's
	// attributes in lexical order, in Terraform as in cc (HCL's).
	{`[for i, z in {"i-123"="us-west","i-abc"="us-east","i-def"="us-east"}: i if z == "us-east"]`, `[
  "i-abc",
  "i-def",
]`, ``},
	{`[for x in [{id="i-123",zone="us-west"},{id="i-abc",zone="us-east"}]: x.id if x.zone == "us-east"]`, `[
  "i-abc",
]`, ``},
	// max.mdx
	{`max(12, 54, 3)`, `54`, ``},
	{`max([12, 54, 3]...)`, `54`, ``},
	// md5.mdx
	{`md5("hello world")`, `"5eb63bbbe01eeed093cb22bb8f5acdc3"`, ``},
	// merge.mdx
	{`merge({a="b", c="d"}, {e="f", c="z"})`, `{
  "a" = "b"
  "c" = "z"
  "e" = "f"
}`, ``},
	{`merge({a="b"}, {a=[1,2], c="z"}, {d=3})`, `{
  "a" = [
    1,
    2,
  ]
  "c" = "z"
  "d" = 3
}`, ``},
	{`merge([{a="b", c="d"}, {}, {e="f", c="z"}]...)`, `{
  "a" = "b"
  "c" = "z"
  "e" = "f"
}`, ``},
	// min.mdx
	{`min(12, 54, 3)`, `3`, ``},
	{`min([12, 54, 3]...)`, `3`, ``},
	// one.mdx
	{`one([])`, `null`, ``},
	{`one(["hello"])`, `"hello"`, ``},
	{`one(["hello", "goodbye"])`, ``, `Invalid value for "list" parameter: must be a list, set, or tuple value with either zero or one elements.`},
	{`one(toset([]))`, `null`, ``},
	{`one(toset(["hello"]))`, `"hello"`, ``},
	{`one(toset(["hello","goodbye"]))`, ``, `Invalid value for "list" parameter: must be a list, set, or tuple value with either zero or one elements.`},
	// parseint.mdx
	{`parseint("100", 10)`, `100`, ``},
	{`parseint("FF", 16)`, `255`, ``},
	{`parseint("-10", 16)`, `-16`, ``},
	{`parseint("1011111011101111", 2)`, `48879`, ``},
	{`parseint("aA", 62)`, `656`, ``},
	{`parseint("12", 2)`, ``, `Invalid value for "number" parameter: cannot parse "12" as a base 2 integer.`},
	// pow.mdx
	{`pow(3, 2)`, `9`, ``},
	{`pow(4, 0)`, `1`, ``},
	// range.mdx
	{`range(3)`, `[
  0,
  1,
  2,
]`, ``},
	{`range(1, 4)`, `[
  1,
  2,
  3,
]`, ``},
	{`range(1, 8, 2)`, `[
  1,
  3,
  5,
  7,
]`, ``},
	{`range(1, 4, 0.5)`, `[
  1,
  1.5,
  2,
  2.5,
  3,
  3.5,
]`, ``},
	{`range(4, 1)`, `[
  4,
  3,
  2,
]`, ``},
	{`range(10, 5, -2)`, `[
  10,
  8,
  6,
]`, ``},
	// regex.mdx
	{`regex("[a-z]+", "53453453.345345aaabbbccc23454")`, `"aaabbbccc"`, ``},
	{`regex("(\\d\\d\\d\\d)-(\\d\\d)-(\\d\\d)", "2019-02-01")`, `[
  "2019",
  "02",
  "01",
]`, ``},
	{`regex("^(?:(?P<scheme>[^:/?#]+):)?(?://(?P<authority>[^/?#]*))?", "https://terraform.io/docs/")`, `{
  "authority" = "terraform.io"
  "scheme" = "https"
}`, ``},
	{`regex("[a-z]+", "53453453.34534523454")`, ``, `Call to function "regex" failed: pattern did not match any part of the given string.`},
	// regexall.mdx
	{`regexall("[a-z]+", "1234abcd5678efgh9")`, `[
  "abcd",
  "efgh",
]`, ``},
	{`length(regexall("[a-z]+", "1234abcd5678efgh9"))`, `2`, ``},
	{`length(regexall("[a-z]+", "123456789")) > 0`, `false`, ``},
	// replace.mdx
	{`replace("1 + 2 + 3", "+", "-")`, `"1 - 2 - 3"`, ``},
	{`replace("hello world", "/w.*d/", "everybody")`, `"hello everybody"`, ``},
	// reverse.mdx
	{`reverse([1, 2, 3])`, `[
  3,
  2,
  1,
]`, ``},
	// setintersection.mdx
	{`setintersection(["a", "b"], ["b", "c"], ["b", "d"])`, `[
  "b",
]`, ``},
	{`setintersection([3,3.3,4], [4,3.3,65,99], [4.0,3.3])`, `toset([
  3.3,
  4,
])`, ``},
	{`setintersection(["bob","jane",3], ["jane",3,"ajax",10], ["3","jane",26,"nomad"])`, `toset([
  "3",
  "jane",
])`, ``},
	// setproduct.mdx
	{`setproduct(["development", "staging", "production"], ["app1", "app2"])`, `[
  [
    "development",
    "app1",
  ],
  [
    "development",
    "app2",
  ],
  [
    "staging",
    "app1",
  ],
  [
    "staging",
    "app2",
  ],
  [
    "production",
    "app1",
  ],
  [
    "production",
    "app2",
  ],
]`, ``},
	{`setproduct(["development", "staging", "production"], [])`, `[]`, ``},
	{`setproduct(["a"], ["b"])`, `[
  [
    "a",
    "b",
  ],
]`, ``},
	{`setproduct(["staging", "production"], ["a", 2])`, `[
  [
    "staging",
    "a",
  ],
  [
    "staging",
    "2",
  ],
  [
    "production",
    "a",
  ],
  [
    "production",
    "2",
  ],
]`, ``},
	// setsubtract.mdx
	{`setsubtract(["a", "b", "c"], ["a", "c"])`, `toset([
  "b",
])`, ``},
	{`setunion(setsubtract(["a", "b", "c"], ["a", "c", "d"]), setsubtract(["a", "c", "d"], ["a", "b", "c"]))`, `toset([
  "b",
  "d",
])`, ``},
	// setunion.mdx
	{`setunion(["a", "b"], ["b", "c"], ["d"])`, `[
  "d",
  "b",
  "c",
  "a",
]`, ``},
	// sha1.mdx
	{`sha1("hello world")`, `"2aae6c35c94fcfb415dbe95f408b9ce91ee846ed"`, ``},
	// sha256.mdx
	{`sha256("hello world")`, `"b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"`, ``},
	// sha512.mdx
	{`sha512("hello world")`, `"309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f"`, ``},
	// signum.mdx
	{`signum(-13)`, `-1`, ``},
	{`signum(0)`, `0`, ``},
	{`signum(344)`, `1`, ``},
	// slice.mdx
	{`slice(["a", "b", "c", "d"], 1, 3)`, `[
  "b",
  "c",
]`, ``},
	// sort.mdx
	{`sort(["e", "d", "a", "x"])`, `[
  "a",
  "d",
  "e",
  "x",
]`, ``},
	// split.mdx
	{`split(",", "foo,bar,baz")`, `[
  "foo",
  "bar",
  "baz",
]`, ``},
	{`split(",", "foo")`, `[
  "foo",
]`, ``},
	{`split(",", "")`, `[
  "",
]`, ``},
	// startswith.mdx
	{`startswith("hello world", "hello")`, `true`, ``},
	{`startswith("hello world", "world")`, `false`, ``},
	// strcontains.mdx
	{`strcontains("hello world", "wor")`, `true`, ``},
	{`strcontains("hello world", "wod")`, `false`, ``},
	// strrev.mdx
	{`strrev("hello")`, `"olleh"`, ``},
	{`strrev("a ☃")`, `"☃ a"`, ``},
	// substr.mdx
	{`substr("hello world", 1, 4)`, `"ello"`, ``},
	{`substr("🤔🤷", 0, 1)`, `"🤔"`, ``},
	{`substr("hello world", -5, -1)`, `"world"`, ``},
	{`substr("hello world", 6, 10)`, `"world"`, ``},
	// sum.mdx
	{`sum([10, 13, 6, 4.5])`, `33.5`, ``},
	// templatefile.mdx
	{`templatefile("backends.tftpl", { port = 8080, ip_addrs = ["10.0.0.1", "10.0.0.2"] })`, `<<EOT
backend 10.0.0.1:8080
backend 10.0.0.2:8080
EOT`, ``},
	// The page leaves out the empty lines its template makes: the
	// newline after "%{ for ... }" is kept (no ~), in Terraform as in cc.
	{`templatefile("config.tftpl", { config = { "x" = "y", "foo" = "bar", "key" = "value" } })`, `"\nset foo = bar\n\nset key = value\n\nset x = y\n"`, ``},
	// textdecodebase64.mdx
	{`textdecodebase64("SABlAGwAbABvACAAVwBvAHIAbABkAA==", "UTF-16LE")`, `"Hello World"`, ``},
	// textencodebase64.mdx
	{`textencodebase64("Hello World", "UTF-16LE")`, `"SABlAGwAbABvACAAVwBvAHIAbABkAA=="`, ``},
	// timeadd.mdx
	{`timeadd("2024-08-16T12:45:05Z", "10m")`, `"2024-08-16T12:55:05Z"`, ``},
	{`timeadd("2024-08-16T12:45:05Z", "-10m")`, `"2024-08-16T12:35:05Z"`, ``},
	// timecmp.mdx
	{`timecmp("2017-11-22T00:00:00Z", "2017-11-22T00:00:00Z")`, `0`, ``},
	{`timecmp("2017-11-22T00:00:00Z", "2017-11-22T01:00:00Z")`, `-1`, ``},
	{`timecmp("2017-11-22T01:00:00Z", "2017-11-22T00:00:00Z")`, `1`, ``},
	{`timecmp("2017-11-22T01:00:00Z", "2017-11-22T00:00:00-01:00")`, `0`, ``},
	// title.mdx
	{`title("hello world")`, `"Hello World"`, ``},
	// tobool.mdx
	{`tobool(true)`, `true`, ``},
	{`tobool("true")`, `true`, ``},
	{`tobool(null)`, `null`, ``},
	{`tobool("no")`, ``, `Invalid value for "v" parameter: cannot convert "no" to bool; only the strings "true" or "false" are allowed.`},
	{`tobool(1)`, ``, `Invalid value for "v" parameter: cannot convert number to bool.`},
	// tolist.mdx
	{`tolist(["a", "b", "c"])`, `[
  "a",
  "b",
  "c",
]`, ``},
	{`tolist(["a", "b", 3])`, `[
  "a",
  "b",
  "3",
]`, ``},
	// tomap.mdx
	{`tomap({"a" = 1, "b" = 2})`, `{
  "a" = 1
  "b" = 2
}`, ``},
	{`tomap({"a" = "foo", "b" = true})`, `{
  "a" = "foo"
  "b" = "true"
}`, ``},
	// tonumber.mdx
	{`tonumber(1)`, `1`, ``},
	{`tonumber("1")`, `1`, ``},
	{`tonumber(null)`, `null`, ``},
	{`tonumber("no")`, ``, `Invalid value for "v" parameter: cannot convert "no" to number; given string must be a decimal representation of a number.`},
	// toset.mdx
	{`toset(["a", "b", "c"])`, `[
  "a",
  "b",
  "c",
]`, ``},
	{`toset(["a", "b", 3])`, `[
  "3",
  "a",
  "b",
]`, ``},
	{`toset(["c", "b", "b"])`, `[
  "b",
  "c",
]`, ``},
	// tostring.mdx
	{`tostring("hello")`, `"hello"`, ``},
	{`tostring(1)`, `"1"`, ``},
	{`tostring(true)`, `"true"`, ``},
	{`tostring(null)`, `null`, ``},
	{`tostring([])`, ``, `Invalid value for "v" parameter: cannot convert tuple to string.`},
	// transpose.mdx
	{`transpose({"a" = ["1", "2"], "b" = ["2", "3"]})`, `{
  "1" = [
    "a",
  ],
  "2" = [
    "a",
    "b",
  ],
  "3" = [
    "b",
  ],
}`, ``},
	// trim.mdx
	{`trim("?!hello?!", "!?")`, `"hello"`, ``},
	{`trim("foobar", "far")`, `"oob"`, ``},
	{`trim("   hello! world.!  ", "! ")`, `"hello! world."`, ``},
	// trimprefix.mdx
	{`trimprefix("helloworld", "hello")`, `"world"`, ``},
	{`trimprefix("helloworld", "cat")`, `"helloworld"`, ``},
	{`trimprefix("--hello", "-")`, `"-hello"`, ``},
	// trimspace.mdx
	{`trimspace("  hello\n\n")`, `"hello"`, ``},
	// trimsuffix.mdx
	{`trimsuffix("helloworld", "world")`, `"hello"`, ``},
	{`trimsuffix("helloworld", "cat")`, `"helloworld"`, ``},
	{`trimsuffix("hello--", "-")`, `"hello-"`, ``},
	// try.mdx
	{`local.foo`, `{
  "bar" = "baz"
}`, ``},
	{`try(local.foo.bar, "fallback")`, `"baz"`, ``},
	{`try(local.foo.boop, "fallback")`, `"fallback"`, ``},
	// upper.mdx
	{`upper("hello")`, `"HELLO"`, ``},
	{`upper("алло!")`, `"АЛЛО!"`, ``},
	// urlencode.mdx
	{`urlencode("Hello World!")`, `"Hello+World%21"`, ``},
	{`urlencode("☃")`, `"%E2%98%83"`, ``},
	{`"http://example.com/search?q=${urlencode("terraform urlencode")}"`, `"http://example.com/search?q=terraform+urlencode"`, ``},
	// uuidv5.mdx
	{`uuidv5("dns", "www.terraform.io")`, `"a5008fae-b28c-5ba5-96cd-82b4c53552d6"`, ``},
	{`uuidv5("url", "https://www.terraform.io/")`, `"9db6f67c-dd95-5ea0-aa5b-e70e5c5f7cf5"`, ``},
	{`uuidv5("oid", "1.3.6.1.4")`, `"af9d40a5-7a36-5c07-b23a-851cd99fbfa5"`, ``},
	{`uuidv5("x500", "CN=Example,C=GB")`, `"84e09961-4aa4-57f8-95b7-03edb1073253"`, ``},
	{`uuidv5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "www.terraform.io")`, `"a5008fae-b28c-5ba5-96cd-82b4c53552d6"`, ``},
	{`uuidv5("743ac3c0-3bf7-4a5b-9e6c-59360447c757", "LIBS:diskfont.library")`, `"ede1a974-df7e-5f17-84b9-76208818b2c8"`, ``},
	// values.mdx
	{`values({a=3, c=2, d=1})`, `[
  3,
  2,
  1,
]`, ``},
	// yamldecode.mdx
	{`yamldecode("hello: world")`, `{
  "hello" = "world"
}`, ``},
	{`yamldecode("true")`, `true`, ``},
	{`yamldecode("{a: &foo [1, 2, 3], b: *foo}")`, `{
  "a" = [
    1,
    2,
    3,
  ]
  "b" = [
    1,
    2,
    3,
  ]
}`, ``},
	{`yamldecode("{a: &foo [1, *foo, 3]}")`, ``, `Call to function "yamldecode" failed: cannot refer to anchor "foo" from inside its own definition.`},
	{`yamldecode("{a: !not-supported foo}")`, ``, `Call to function "yamldecode" failed: unsupported tag "!not-supported".`},
	// yamlencode.mdx
	{`yamlencode({"a":"b", "c":"d"})`, `<<EOT
"a": "b"
"c": "d"
EOT`, ``},
	{`yamlencode({"foo":[1, 2, 3], "bar": "baz"})`, `<<EOT
"bar": "baz"
"foo":
- 1
- 2
- 3
EOT`, ``},
	{`yamlencode({"foo":[1, {"a":"b","c":"d"}, 3], "bar": "baz"})`, `<<EOT
"bar": "baz"
"foo":
- 1
- "a": "b"
  "c": "d"
- 3
EOT`, ``},
	// zipmap.mdx
	{`zipmap(["a", "b"], [1, 2])`, `{
  "a" = 1
  "b" = 2
}`, ``},
	// Cases of Terraform's function tests (internal/lang/funcs/*_test.go)
	// and of issue 15, written as expressions.
	// replace: a pattern between slashes is a regular expression.
	{`replace("hello", "hel", "bel")`, `"bello"`, ``},
	{`replace("hello", "nope", "bel")`, `"hello"`, ``},
	{`replace("hello", "/l/", "L")`, `"heLLo"`, ``},
	{`replace("helo", "/(l)/", "$1$1")`, `"hello"`, ``},
	{`replace("hello", "/(l/", "$1$1")`, ``, `error parsing regexp: missing closing ): ` + "`(l`"},
	{`replace(lower(var.s), "/[^a-z0-9]+/", "-")`, `"my-service-name"`, ``},
	{`replace("2019-02-01", "/(\\d+)-(\\d+)-(\\d+)/", "$3.$2.$1")`, `"01.02.2019"`, ``},
	{`replace("a/b", "/", "-")`, `"a-b"`, ``},
	{`replace("x", "//", "-")`, `"-x-"`, ``},
	// strcontains, startswith, endswith
	{`strcontains("hello", "hel")`, `true`, ``},
	{`strcontains("hello1", "1")`, `true`, ``},
	{`strcontains("hello1", "heo")`, `false`, ``},
	{`startswith("", "")`, `true`, ``},
	{`startswith("a", "")`, `true`, ``},
	{`startswith("", "a")`, `false`, ``},
	{`startswith("hey world", "hello")`, `false`, ``},
	{`endswith("hello world", "")`, `true`, ``},
	// length of strings, lists, maps and objects
	{`length({a = 1, b = [2, 3]})`, `2`, ``},
	{`length(tomap({a = 1, b = 2, c = 3}))`, `3`, ``},
	{`length(toset(["a", "b", "a"]))`, `2`, ``},
	{`length("")`, `0`, ``},
	{`length("\U0001f937\u200d\u2642")`, `1`, ``},
	{`length(5)`, ``, `argument must be a string, a collection type, or a structural type`},
	// lookup with 2 or 3 arguments
	{`lookup({a = "ay", b = "bee"}, "b")`, `"bee"`, ``},
	{`lookup(tomap({a = "ay"}), "a")`, `"ay"`, ``},
	{`lookup(tomap({a = "ay"}), "boop")`, ``, `lookup failed to find key "boop"`},
	{`lookup({a = "ay"}, "boop")`, ``, `the given object has no attribute "boop"`},
	{`lookup(tomap({a = 1}), "b", 2)`, `2`, ``},
	{`lookup(["a"], "0")`, ``, `lookup() requires a map as the first argument`},
	// index, one, sum, alltrue, anytrue
	{`index(["a", "b", "c"], "c")`, `2`, ``},
	{`index([], "a")`, ``, `cannot search an empty list`},
	{`index(["a", "b"], "z")`, ``, `item not found`},
	{`index("ab", "a")`, ``, `argument must be a list or tuple`},
	{`one([1])`, `1`, ``},
	{`one(tolist([]))`, `null`, ``},
	{`one([[1, 2]])`, `[1, 2]`, ``},
	{`one(null)`, ``, `argument must not be null`},
	{`one({a = 1})`, ``, `must be a list, set, or tuple value with either zero or one elements`},
	{`sum([1, 2, 3])`, `6`, ``},
	{`sum(toset([1, 2]))`, `3`, ``},
	{`sum([-1.5, 0.5])`, `-1`, ``},
	{`sum([])`, ``, `cannot sum an empty list`},
	{`sum(["a"])`, ``, `argument must be list, set, or tuple of number values`},
	{`sum([1, null])`, ``, `argument must be list, set, or tuple of number values`},
	{`sum({a = 1})`, ``, `argument must be list, set, or tuple. Received object`},
	{`alltrue([])`, `true`, ``},
	{`alltrue([true, true])`, `true`, ``},
	{`alltrue(["false"])`, `false`, ``},
	{`alltrue([null])`, `false`, ``},
	{`alltrue([1])`, ``, `Invalid value for "list" parameter: element 0: bool required`},
	{`anytrue([false, false])`, `false`, ``},
	{`anytrue([null, true])`, `true`, ``},
	// set functions, chunklist, transpose, matchkeys, flatten
	{`setsubtract(["a", "b"], [])`, `toset(["a", "b"])`, ``},
	{`setsubtract([], ["a"])`, `[]`, ``},
	{`setintersection(["a"], ["b"])`, `[]`, ``},
	{`setproduct()`, ``, `at least two arguments are required`},
	{`setproduct(["a"], [1, 2])`, `[["a", 1], ["a", 2]]`, ``},
	{`chunklist([], 2)`, `[]`, ``},
	{`chunklist(["a", "b"], 0)`, `[["a", "b"]]`, ``},
	{`chunklist(["a"], -1)`, ``, `the size argument must be positive`},
	{`transpose({})`, `tomap({})`, ``},
	{`transpose({a = ["1"], b = ["1"], c = []})`, `tomap({"1" = tolist(["a", "b"])})`, ``},
	{`transpose({a = [null]})`, ``, `input list must not contain null string`},
	{`matchkeys(["a", "b"], ["x", "y"], [])`, `tolist([])`, ``},
	{`matchkeys(["a", "b"], ["x"], ["x"])`, ``, `length of keys and values should be equal`},
	{`matchkeys([1, 2, 3], [4, 5, 6], [5, 6])`, `tolist([2, 3])`, ``},
	{`flatten([[1, [2, [3]]], []])`, `[1, 2, 3]`, ``},
	{`flatten("a")`, ``, `can only flatten lists, sets and tuples`},
	// coalesce with nulls
	{`coalesce(null, "b")`, `"b"`, ``},
	{`coalesce(null, null, 2)`, `2`, ``},
	{`coalesce("", null, "c")`, `"c"`, ``},
	{`coalesce(null, "")`, ``, `no non-null, non-empty-string arguments`},
	{`coalesce()`, ``, `all arguments must have the same type`},
	{`coalescelist([], [])`, ``, `no non-null arguments`},
	// encodings
	{`base64encode("")`, `""`, ``},
	{`base64decode("dfg")`, ``, `failed to decode base64 data "dfg"`},
	// Terraform redacts the value from this reason; cc withholds the
	// reason of any call with a sensitive argument (funcswithheld.go).
	{`base64decode(var.secret)`, ``, `failed: the reason is withheld, as an argument of the call is sensitive`},
	{`base64decode("wzE=")`, ``, `the result of decoding the provided string is not valid UTF-8`},
	{`base64gzip("test")`, `"H4sIAAAAAAAA/ypJLS4BAAAA//8BAAD//wx+f9gEAAAA"`, ``},
	{`urlencode("foo:bar@localhost?foo=bar&bar=baz")`, `"foo%3Abar%40localhost%3Ffoo%3Dbar%26bar%3Dbaz"`, ``},
	{`urlencode("mail@example.com")`, `"mail%40example.com"`, ``},
	{`textencodebase64("abc123!?$*&()'-=@~", "UTF-8")`, `"YWJjMTIzIT8kKiYoKSctPUB+"`, ``},
	{`textencodebase64("🤔", "cp437")`, ``, `the given string contains characters that cannot be represented in IBM437`},
	{`textencodebase64("a", "NOT-A-ENCODING")`, ``, `"NOT-A-ENCODING" is not a supported IANA encoding name or alias in this Terraform version`},
	{`textdecodebase64("YWJjMTIzIT8kKiYoKSctPUB+", "UTF-8")`, `"abc123!?$*&()'-=@~"`, ``},
	{`textdecodebase64("doesn't matter", "UTF-8")`, ``, `the given value is has an invalid base64 symbol at offset 5`},
	{`textdecodebase64("gQ==", "windows-1250")`, ``, `the given string contains symbols that are not defined for windows-1250`},
	{`csvdecode("a,b\n1,2\n")`, `tolist([{a = "1", b = "2"}])`, ``},
	{`csvdecode("a,b\n1\n")`, ``, `wrong number of fields`},
	{`yamldecode("- a\n- 1\n")`, `["a", 1]`, ``},
	{`yamldecode("a: [1, 2]")`, `{a = [1, 2]}`, ``},
	{`yamlencode("hello")`, `"\"hello\"\n"`, ``},
	{`yamlencode(null)`, `"null\n...\n"`, ``},
	{`yamlencode([true, 1.5])`, `"- true\n- 1.5\n"`, ``},
	{`jsonencode([1, "a", null])`, `"[1,\"a\",null]"`, ``},
	{`jsondecode("{")`, ``, `Call to function "jsondecode" failed: EOF.`},
	// hashes
	{`md5("tada")`, `"ce47d07243bb6eaf5e1322c81baf9bbf"`, ``},
	{`sha1("test")`, `"a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"`, ``},
	{`sha256("test")`, `"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"`, ``},
	{`sha512("test")`, `"ee26b0dd4af7e749aa1a8ee3c10ae9923f618980772e473f8819a5d4940e0db27ac185f8a0e1d5f84f88bc887fd67b143732c304cc5fa9ad8e6f57f50028a8ff"`, ``},
	{`base64sha256("test")`, `"n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="`, ``},
	{`base64sha512("test")`, `"7iaw3Ur350mqGo7jwQrpkj9hiYB3Lkc/iBml1JQODbJ6wYX4oOHV+E+IvIh/1nsUNzLDBMxfqa2Ob1f1ACio/w=="`, ``},
	{`uuidv5("bad-namespace", "x")`, ``, `uuidv5() doesn't support namespace bad-namespace`},
	// file functions, inside the project root
	{`filemd5("hello.txt")`, `"b10a8db164e0754105b7a99be72e3fe5"`, ``},
	{`filesha1("hello.txt")`, `"0a4d55a8d778e5022fab701977c5d840bbc486d0"`, ``},
	{`filesha256("hello.txt")`, `"a591a6d40bf420404a011733cfb7b190d62c65bf0bcda32b57b277d9ad9f146e"`, ``},
	{`filesha512("hello.txt")`, `"2c74fd17edafd80e8447b0d46741ee243b7eb74dd2149a0ab1b9246fb30382f27e853d8585719e0e67cbda0daa8f51671064615d645ae27acb15bfb1447f459b"`, ``},
	{`filebase64sha256("hello.txt")`, `"pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4="`, ``},
	{`filebase64sha512("hello.txt")`, `"LHT9F+2v2A6ER7DUZ0HuJDt+t03SFJoKsbkkb7MDgvJ+hT2FhXGeDmfL2g2qj1FnEGRhXWRa4nrLFb+xRH9Fmw=="`, ``},
	{`file("icon.png")`, ``, `contents of "icon.png" are not valid UTF-8; use the filebase64 function`},
	{`file("missing")`, ``, `no file exists at "missing"; this function works only with files that are distributed as part of the configuration source code`},
	{`filemd5("missing")`, ``, `no file exists at "missing"`},
	{`fileexists("missing")`, `false`, ``},
	{`fileset(".", "missing*")`, `toset([])`, ``},
	{`fileset(".", "*.txt")`, `toset(["hello.txt"])`, ``},
	{`fileset(".", "files/**/*.txt")`, `toset(["files/hello.txt", "files/subdirectory/anotherfile.txt", "files/world.txt"])`, ``},
	{`fileset("files", "?????.txt")`, `toset(["hello.txt", "world.txt"])`, ``},
	{`fileset(".", "[")`, ``, `failed to glob pattern [: syntax error in pattern`},
	// cc keeps every file function inside the project root, as file does
	// (Terraform reads anywhere).
	{`fileset("..", "*")`, ``, `..: leaves the project root`},
	{`fileset("/", "*")`, ``, `leaves the project root (paths are relative to the project root)`},
	{`templatefile("../funcs/hello.txt", {})`, ``, `leaves the project root`},
	{`filebase64("../funcs/hello.txt")`, ``, `leaves the project root`},
	{`filesha512("/etc/passwd")`, ``, `leaves the project root`},
	{`templatestring(local.reads_file, {})`, ``, `cannot use filesystem access functions like file in templatestring templates; consider passing the function result as a template variable instead`},
	{`basename("hello.txt")`, `"hello.txt"`, ``},
	{`basename("/")`, `"/"`, ``},
	{`dirname("hello.txt")`, `"."`, ``},
	{`dirname("/foo/bar")`, `"/foo"`, ``},
	{`templatefile("hello.txt", {})`, `"Hello World"`, ``},
	{`templatefile("icon.png", {})`, ``, `contents of "icon.png" are not valid UTF-8`},
	{`templatefile("missing", {})`, ``, `no file exists at "missing"`},
	{`templatefile("hello.tmpl", { name = "Jodie" })`, `"Hello, Jodie!"`, ``},
	{`templatefile("hello.tmpl", tomap({ "name!" = "Jodie" }))`, ``, `invalid template variable name "name!": must start with a letter, followed by zero or more letters, digits, and underscores`},
	{`templatefile("hello.tmpl", {})`, ``, `vars map does not contain key "name", referenced at hello.tmpl:1,10-14`},
	{`templatefile("func.tmpl", { list = ["a", "b", "c"] })`, `"The items are a, b, c"`, ``},
	{`templatefile("recursive.tmpl", {})`, ``, `recursive.tmpl:1,3-16: Error in function call; Call to function "templatefile" failed: cannot recursively call templatefile from inside another template function.`},
	{`templatefile("list.tmpl", { list = ["a", "b", "c"] })`, `"- a\n- b\n- c\n"`, ``},
	{`templatefile("list.tmpl", { list = true })`, ``, `Iteration over non-iterable value; A value of type bool cannot be used as the collection in a 'for' expression.`},
	{`templatefile("bare.tmpl", { val = true })`, `true`, ``},
	{`templatestring(local.template, { name = "Jodie" })`, `"Hello, Jodie!"`, ``},
	{`templatestring("Hello, $${name}", { name = "x" })`, ``, `invalid template expression: must be a direct reference to a single string from elsewhere`},
	// numbers
	// abs.mdx (its examples are written "$ abs(23)")
	{`abs(23)`, `23`, ``},
	{`abs(0)`, `0`, ``},
	{`abs(-12.4)`, `12.4`, ``},
	{`pow(2, 10)`, `1024`, ``},
	{`pow(2, -1)`, `0.5`, ``},
	{`log(1, 10)`, `0`, ``},
	{`signum(-0.5)`, `-1`, ``},
	{`parseint("FF", 10)`, ``, `cannot parse "FF" as a base 10 integer`},
	{`parseint("00FF", 10)`, ``, `cannot parse "00FF" as a base 10 integer`},
	{`parseint(1, 10)`, ``, `first argument must be a string, not number`},
	{`parseint("1", 63)`, ``, `base must be a whole number between 2 and 62 inclusive`},
	{`parseint("1.2", 10)`, ``, `cannot parse "1.2" as a base 10 integer`},
	{`parseint("-ff", 16)`, `-255`, ``},
	// conversions, try and can
	{`tonumber("1.5")`, `1.5`, ``},
	{`tolist(toset(["b", "a"]))`, `tolist(["a", "b"])`, ``},
	{`tomap({a = 1, b = "x"})`, `tomap({a = "1", b = "x"})`, ``},
	{`tostring({})`, ``, `cannot convert object to string`},
	{`try(local.foo.boop, local.foo.bar)`, `"baz"`, ``},
	{`try(tonumber("x"), 0)`, `0`, ``},
	{`try(local.foo.boop)`, ``, `no expression succeeded`},
	{`can(tonumber("1"))`, `true`, ``},
	{`can(regex("^[a-z]+$", "ABC"))`, `false`, ``},
	{`issensitive(sensitive(1))`, `true`, ``},
	{`issensitive(local.foo)`, `false`, ``},
	{`ephemeralasnull("a")`, `"a"`, ``},
	// network
	{`cidrhost("192.168.1.0/24", 5)`, `"192.168.1.5"`, ``},
	{`cidrhost("192.168.1.0/24", -5)`, `"192.168.1.251"`, ``},
	{`cidrhost("192.168.1.0/24", -256)`, `"192.168.1.0"`, ``},
	{`cidrhost("010.001.0.0/24", 6)`, `"10.1.0.6"`, ``},
	{`cidrhost("192.168.1.0/30", 255)`, ``, `prefix of 30 does not accommodate a host numbered 255`},
	{`cidrhost("not-a-cidr", 6)`, ``, `invalid CIDR expression: invalid CIDR address: not-a-cidr`},
	{`cidrhost("10.256.0.0/8", 6)`, ``, `invalid CIDR expression: invalid CIDR address: 10.256.0.0/8`},
	{`cidrhost("10.0.0.0/8", 0.75)`, ``, `value must be a whole number`},
	{`cidrnetmask("192.168.1.0/24")`, `"255.255.255.0"`, ``},
	{`cidrnetmask("192.168.1.0/32")`, `"255.255.255.255"`, ``},
	{`cidrnetmask("1.2.3.4/8")`, `"255.0.0.0"`, ``},
	{`cidrnetmask("::1/128")`, ``, `IPv6 addresses cannot have a netmask: ::1/128`},
	{`cidrsubnet("192.168.2.0/20", 4, 6)`, `"192.168.6.0/24"`, ``},
	{`cidrsubnet("fe80::/48", 16, 6)`, `"fe80:0:0:6::/64"`, ``},
	{`cidrsubnet("fe80::/48", 33, 6)`, `"fe80::3:0:0:0/81"`, ``},
	{`cidrsubnet("::ffff:192.168.0.0/112", 8, 6)`, `"192.168.6.0/24"`, ``},
	{`cidrsubnet("010.001.0.0/24", 4, 1)`, `"10.1.0.16/28"`, ``},
	{`cidrsubnet("192.168.2.0/30", 4, 6)`, ``, `insufficient address space to extend prefix of 30 by 4`},
	{`cidrsubnet("192.168.2.0/20", 4, 16)`, ``, `prefix extension of 4 does not accommodate a subnet numbered 16`},
	{`cidrsubnets("10.0.0.0/21", 3, 3, 3, 4, 4, 4, 7, 7, 7)`, `tolist(["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/25", "10.0.3.128/25", "10.0.4.0/25", "10.0.4.128/28", "10.0.4.144/28", "10.0.4.160/28"])`, ``},
	{`cidrsubnets("010.0.0.0/21", 3)`, `tolist(["10.0.0.0/24"])`, ``},
	{`cidrsubnets("10.0.0.0/30", 1, 3)`, ``, `would extend prefix to 33 bits, which is too long for an IPv4 address`},
	{`cidrsubnets("10.0.0.0/8", 1, 1, 1)`, ``, `not enough remaining address space for a subnet with a prefix of 9 bits after 10.128.0.0/9`},
	{`cidrsubnets("10.0.0.0/8", 1, 0)`, ``, `must extend prefix by at least one bit`},
	{`cidrsubnets("fe80::/48", 1, 33)`, ``, `may not extend prefix by more than 32 bits`},
	{`cidrsubnets("10.0.0.0/8")`, `tolist([])`, ``},
	// dates
	{`formatdate("YYYY-MM-DD", "2017-11-22T00:00:00Z")`, `"2017-11-22"`, ``},
	{`formatdate("YYYY", "bloop")`, ``, `not a valid RFC3339 timestamp: cannot use "bloop" as year`},
	{`timeadd("2017-11-22T00:00:00Z", "1h")`, `"2017-11-22T01:00:00Z"`, ``},
	{`timeadd("2017-11-22T00:00:00Z", "1d")`, ``, `time: unknown unit "d" in duration "1d"`},
	{`timeadd("2017-11-22 00:00:00Z", "1h")`, ``, `not a valid RFC3339 timestamp: missing required time introducer 'T'`},
	{`timecmp("2017-11-22T00:00:00Z", "2017-11-22T00:00:00.000Z")`, `0`, ``},
	{`timecmp("bloop", "2017-11-22T00:00:00Z")`, ``, `not a valid RFC3339 timestamp: cannot use "bloop" as year`},
	{`timecmp("2017-11-22T00:00:00Z", "2017-11-22 00:00:00Z")`, ``, `not a valid RFC3339 timestamp: missing required time introducer 'T'`},
	// strings
	{`strrev("")`, `""`, ``},
	{`strrev("a\u0301b")`, `"ba\u0301"`, ``},
	{`title("hello WORLD")`, `"Hello WORLD"`, ``},
	{`trimspace(" \t a \n")`, `"a"`, ``},
	{`indent(2, "a\nb\n")`, `"a\n  b\n  "`, ``},
	{`chomp("a\r\n\r\n")`, `"a"`, ``},
	{`substr("hello", 1, -1)`, `"ello"`, ``},
	{`substr("hello", 10, 1)`, `""`, ``},
	{`formatlist("%s=%d", ["a", "b"], [1, 2])`, `tolist(["a=1", "b=2"])`, ``},
	{`formatlist("%s", ["a"], ["b", "c"])`, ``, `argument 2 has length 2, which is inconsistent with argument 1 of length 1`},
	{`regexall("(a)(b)?", "aab")`, `tolist([["a", null], ["a", "b"]])`, ``},
	{`regex("(?P<x>a)", "a")`, `{x = "a"}`, ``},
	{`regex("(", "a")`, ``, `invalid regexp pattern: missing closing ) in (`},
	// cc's alias, kept: strlen(s) is length(s) for a string
	{`strlen("👾🕹️")`, `2`, ``},
}
