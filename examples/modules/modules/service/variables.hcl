# The inputs of the service module.

variable "from" {
  type        = string
  description = "The registry image the service's image starts from."
}

variable "command" {
  type = list(string)
}

variable "memory" {
  type    = string
  default = "1Gi"
}

variable "cache_size" {
  type    = string
  default = "10Gi"
}

variable "port" {
  type    = number
  default = 8080
}
