"""Results people can look at, compare and publish: tables, figures and Hub eval results of score reports."""
