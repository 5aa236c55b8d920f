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
	{`tostring(null)`, `"tostring(null)"`, ``},
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
}
