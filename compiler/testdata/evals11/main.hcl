project = "platform-tour"

image "app" { from = "python:3.12-slim" }
secret "openai" { from_env = "OPENAI_API_KEY" }
function "answer" {
  image = image.app
  source { paths = ["src"] }
  handler = "app.main:answer"
}

suite "release" {
  title       = "Release"
  description = "Evaluations that gate a release."
}

dataset "goldens" {
  name  = "support_goldens"
  files = fileset(".", "data/*.csv")
}
dataset "capitals" {
  rows = [
    { input = "France", expected = "Paris" },
    { input = "Japan", expected = "Tokyo" },
  ]
}
dataset "capitals2" {
  columns = {
    input    = ["France", "Japan"]
    expected = ["Paris", "Tokyo"]
  }
}

evaluation "support" {
  title   = "Customer Support Chatbot"
  dataset = dataset.goldens
  task    = function.answer
  suite   = suite.release

  scorer "exact_match" {
    inputs           = ["output", "expected"]
    case_insensitive = true
  }
  scorer "function" {
    function = function.answer
    scores   = ["relevance", "tone"]
  }
  scorer "external_function" {
    version_id = "fn_brand_alignment_v2"
  }
  scorer "llm_judge" {
    model        = "gpt-5"
    instructions = "Grade the answer."
    inputs       = ["input", "output"]
    prompt       = "Question: {{input}}\nAnswer: {{ output }}"
    parse        = "json"
    field {
      name  = "score"
      type  = "float"
      range = [0, 1]
    }
    field {
      name   = "verdict"
      type   = "enum"
      values = ["pass", "fail"]
    }
    field {
      name = "issues"
      type = "list"
      items { type = "string" }
    }
    field {
      name = "detail"
      type = "object"
      field {
        name  = "tone"
        type  = "int"
        range = [0, 2]
      }
    }
    completion = { temperature = 0, stop = ["\n\n"], extra = { b = "x", a = 1 } }
  }
}
