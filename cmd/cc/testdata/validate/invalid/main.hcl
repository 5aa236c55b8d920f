project = "demo"

variable "token" {
  type      = string
  default   = "Zq7canaryX"
  sensitive = true
}

sandbox "dev" {
  image  = "python:3.12-slim"
  comand = ["sleep", "infinity"]
  resources {
    requests { cpu = var.token }
  }
}
